import { describe, expect, it } from "vitest";
import { MAX_IP_ENTRIES, MAX_LABEL_LENGTH, MAX_URL_LENGTH, checkCreate, type CreateInput } from "./create-rules.js";
import { BIDI_MESSAGE, SURROGATE_MESSAGE } from "../../kernel/text.js";

const NOW = Date.parse("2026-01-01T00:00:00.000Z");
const VALID: CreateInput = { label: "trading bot", permissions: ["READ_ONLY"], ip_whitelist: [] };

const check = (overrides: Partial<CreateInput>) => checkCreate({ ...VALID, ...overrides }, NOW);

/** The issue paths a create reports, or [] when it passes. */
const pathsOf = (overrides: Partial<CreateInput>): string[] => {
  const result = check(overrides);
  return "issues" in result ? result.issues.map((i) => i.path) : [];
};

function accepted(overrides: Partial<CreateInput>) {
  const result = check(overrides);
  if (!("ok" in result)) throw new Error(`expected the create to pass, got ${JSON.stringify(result.issues)}`);
  return result.ok;
}

function refused(overrides: Partial<CreateInput>) {
  const result = check(overrides);
  if (!("issues" in result)) throw new Error(`expected issues, got ${JSON.stringify(result.ok)}`);
  return result.issues;
}

describe("checkCreate: a valid create", () => {
  it("passes with only a label and one scope, and normalises the optional fields to undefined", () => {
    expect(accepted({})).toEqual({
      label: "trading bot",
      permissions: ["READ_ONLY"],
      ipWhitelist: [],
      webhookUrl: undefined,
      expiresAt: undefined,
    });
  });

  it("passes with every field set", () => {
    expect(
      accepted({
        label: "full",
        permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
        ip_whitelist: ["1.2.3.4", "10.0.0.0/8", "2001:db8::/32"],
        webhook_url: "https://hooks.example.com/fills?x=1",
        expires_at: "2030-01-01T00:00:00Z",
      }),
    ).toEqual({
      label: "full",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
      ipWhitelist: ["1.2.3.4", "10.0.0.0/8", "2001:db8::/32"],
      webhookUrl: "https://hooks.example.com/fills?x=1",
      expiresAt: new Date("2030-01-01T00:00:00.000Z"),
    });
  });
});

describe("checkCreate: label", () => {
  it.each(["", " ", "   \t\n "])("when the label is %j then label is required", (label) => {
    expect(refused({ label })).toEqual([{ path: "label", message: "label is required" }]);
  });

  it("trims the label", () => {
    expect(accepted({ label: "  my bot \n" }).label).toBe("my bot");
  });

  it(`accepts a label of exactly ${MAX_LABEL_LENGTH} characters, also with surrounding spaces`, () => {
    expect(accepted({ label: "a".repeat(MAX_LABEL_LENGTH) }).label).toHaveLength(MAX_LABEL_LENGTH);
    expect(accepted({ label: `  ${"a".repeat(MAX_LABEL_LENGTH)}  ` }).label).toHaveLength(MAX_LABEL_LENGTH);
  });

  it.each(["a\u0000b", "a\u0007b", "tab\tinside", "line\nbreak", "del\u007f"])(
    "refuses the label %j, which holds a control character",
    (label) => {
      expect(refused({ label })).toEqual([{ path: "label", message: "label must not contain control characters" }]);
    },
  );

  it.each(["a\u0080b", "nel\u0085", "csi\u009b"])(
    "refuses the label %j, which holds a C1 control character",
    (label) => {
      expect(refused({ label })).toEqual([{ path: "label", message: "label must not contain control characters" }]);
    },
  );

  it.each(["main\u202etxt.exe", "a\u2066b\u2069", "\u200fkey", "x\u061cy", "\u202aembed\u202c"])(
    "refuses the label %j, which holds a bidirectional formatting character, and says so",
    (label) => {
      expect(refused({ label })).toEqual([
        {
          path: "label",
          message: `label ${BIDI_MESSAGE}`,
        },
      ]);
    },
  );

  it("accepts a label in any script, emoji included", () => {
    expect(accepted({ label: "bot ünïcode 机器人 🚀" }).label).toBe("bot ünïcode 机器人 🚀");
  });

  it("refuses a label with an unpaired surrogate rather than store it changed", () => {
    expect(refused({ label: "a\ud800b" })).toEqual([{ path: "label", message: `label ${SURROGATE_MESSAGE}` }]);
  });

  it(`counts characters, not UTF-16 units: ${MAX_LABEL_LENGTH} emoji pass, ${MAX_LABEL_LENGTH + 1} do not`, () => {
    const rocket = "\ud83d\ude80";
    expect(accepted({ label: rocket.repeat(MAX_LABEL_LENGTH) }).label).toBe(rocket.repeat(MAX_LABEL_LENGTH));
    expect(refused({ label: rocket.repeat(MAX_LABEL_LENGTH + 1) })).toEqual([
      { path: "label", message: `label must be at most ${MAX_LABEL_LENGTH} characters` },
    ]);
  });

  it(`refuses a label of ${MAX_LABEL_LENGTH + 1} characters`, () => {
    expect(refused({ label: "a".repeat(MAX_LABEL_LENGTH + 1) })).toEqual([
      { path: "label", message: `label must be at most ${MAX_LABEL_LENGTH} characters` },
    ]);
  });
});

describe("checkCreate: permissions", () => {
  it("when permissions is empty then at least one scope is required", () => {
    expect(refused({ permissions: [] })).toEqual([{ path: "permissions", message: "at least one scope is required" }]);
  });

  it.each([
    [["ADMIN"], ["permissions.0"]],
    [["read_only"], ["permissions.0"]],
    [[""], ["permissions.0"]],
    [[" TRADE"], ["permissions.0"]],
    [["READ_ONLY", "WITHDRAW"], ["permissions.1"]],
    [
      ["TRADE", "x", "MANAGE_ORDERS", "y"],
      ["permissions.1", "permissions.3"],
    ],
  ])("when permissions are %j then the unknown scopes are reported at %j", (permissions, paths) => {
    const issues = refused({ permissions });
    expect(issues.map((i) => i.path)).toEqual(paths);
    for (const issue of issues) expect(issue.message).toMatch(/unknown scope/);
  });

  it("collapses duplicate scopes, keeping the first-seen order", () => {
    expect(accepted({ permissions: ["TRADE", "READ_ONLY", "TRADE", "READ_ONLY", "TRADE"] }).permissions).toEqual([
      "TRADE",
      "READ_ONLY",
    ]);
  });

  it("accepts every scope on its own", () => {
    for (const scope of ["READ_ONLY", "TRADE", "MANAGE_ORDERS"]) {
      expect(accepted({ permissions: [scope] }).permissions).toEqual([scope]);
    }
  });
});

describe("checkCreate: ip_whitelist", () => {
  it.each([
    [["1.2.3.4", "nope"], ["ip_whitelist.1"]],
    [["999.1.1.1"], ["ip_whitelist.0"]],
    [["1.2.3.4/33"], ["ip_whitelist.0"]],
    [["2001:db8::/129"], ["ip_whitelist.0"]],
    [["1.2.3.4/x"], ["ip_whitelist.0"]],
    [["1.2.3.4/24/1"], ["ip_whitelist.0"]],
    [
      ["example.com", "10.0.0.0/8", ""],
      ["ip_whitelist.0", "ip_whitelist.2"],
    ],
  ])("when the list is %j then the malformed entries are reported at %j", (ip_whitelist, paths) => {
    expect(pathsOf({ ip_whitelist })).toEqual(paths);
  });

  it("passes checkEntry's message through", () => {
    expect(refused({ ip_whitelist: ["1.2.3.4/33"] })).toEqual([
      { path: "ip_whitelist.0", message: "CIDR prefix length must be at most 32" },
    ]);
  });

  it("trims entries and collapses duplicates, keeping the first-seen order", () => {
    expect(
      accepted({ ip_whitelist: [" 10.0.0.0/8 ", "1.2.3.4", "10.0.0.0/8", "1.2.3.4\t", "::1", "::1"] }).ipWhitelist,
    ).toEqual(["10.0.0.0/8", "1.2.3.4", "::1"]);
  });

  it("accepts v4, v6, CIDR and IPv4-mapped entries together", () => {
    const entries = ["1.2.3.4", "10.0.0.0/8", "::1", "2001:db8::/32", "::ffff:10.0.0.0/104"];
    expect(accepted({ ip_whitelist: entries }).ipWhitelist).toEqual(entries);
  });

  it(`accepts ${MAX_IP_ENTRIES} entries`, () => {
    const ip_whitelist = Array.from({ length: MAX_IP_ENTRIES }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`);
    expect(accepted({ ip_whitelist }).ipWhitelist).toHaveLength(MAX_IP_ENTRIES);
  });

  it(`refuses ${MAX_IP_ENTRIES + 1} entries at ip_whitelist`, () => {
    const ip_whitelist = Array.from({ length: MAX_IP_ENTRIES + 1 }, (_, i) => `10.0.${Math.floor(i / 256)}.${i % 256}`);
    expect(refused({ ip_whitelist })).toEqual([{ path: "ip_whitelist", message: `at most ${MAX_IP_ENTRIES} entries` }]);
  });

  it("counts entries before collapsing duplicates", () => {
    expect(pathsOf({ ip_whitelist: Array.from({ length: MAX_IP_ENTRIES + 1 }, () => "1.2.3.4") })).toEqual([
      "ip_whitelist",
    ]);
  });

  it("reports the size and the malformed entries of an oversized list together", () => {
    const ip_whitelist = [...Array.from({ length: MAX_IP_ENTRIES }, () => "1.2.3.4"), "bad"];
    expect(pathsOf({ ip_whitelist })).toEqual(["ip_whitelist", `ip_whitelist.${MAX_IP_ENTRIES}`]);
  });
});

describe("checkCreate: webhook_url", () => {
  it.each([
    ["http://hooks.example.com", "must start with https://"],
    ["ftp://hooks.example.com", "must start with https://"],
    ["https:/hooks.example.com", "must start with https://"],
    ["https:/x", "must start with https://"],
    ["HTTPS://hooks.example.com", "must start with https://"],
    [" https://hooks.example.com", "must start with https://"],
    ["hooks.example.com", "must start with https://"],
    ["", "must start with https://"],
    ["https://", "must be a valid URL"],
    ["https://exa mple.com", "must not contain spaces or control characters"],
    ["https://hooks.example.com/a\u0000b", "must not contain spaces or control characters"],
    ["https://hooks.example.com/\thook", "must not contain spaces or control characters"],
    ["https://hooks.exa\nmple.com/hook", "must not contain spaces or control characters"],
    ["https://hooks.example.com/hook\u007f", "must not contain spaces or control characters"],
    ["https://user:pass@hooks.example.com", "must not contain credentials"],
    ["https://user@hooks.example.com/hook", "must not contain credentials"],
    ["https://:pass@hooks.example.com", "must not contain credentials"],
    ["https://hooks.example.com/hook#frag", "must not contain a fragment"],
  ])("refuses %j with %j", (webhook_url, message) => {
    expect(refused({ webhook_url })).toEqual([{ path: "webhook_url", message }]);
  });

  it.each([
    "https://hooks.example.com",
    "https://hooks.example.com/",
    "https://hooks.example.com:8443/path/to/hook?user=1&a=b",
    "https://93.184.215.14/hook",
    "https://[2606:4700::1111]:8443/hook",
    // A host name is judged when each delivery connects (docs/webhooks.md, "Security").
    "https://localhost:8443/hook",
  ])("accepts %j unchanged", (webhook_url) => {
    expect(accepted({ webhook_url }).webhookUrl).toBe(webhook_url);
  });

  it.each([
    "https://127.0.0.1/hook",
    "https://[::1]:8443/hook",
    "https://10.1.2.3/hook",
    "https://172.16.0.1/hook",
    "https://192.168.1.1/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://[fe80::1]/hook",
    "https://[fd00::1]/hook",
    "https://224.0.0.1/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://0.0.0.0/hook",
    // IPv4 inside IPv6, as NAT64, IPv4-compatible and 6to4 addresses (the URL parser writes them in hex).
    "https://[64:ff9b::a9fe:a9fe]/x",
    "https://[64:ff9b::169.254.169.254]/x",
    "https://[::127.0.0.1]/x",
    "https://[2002:a00:1::]/x",
  ])("refuses the non-public address literal %j (SSRF)", (webhook_url) => {
    expect(refused({ webhook_url })).toEqual([
      { path: "webhook_url", message: "must not point at a loopback, private, link-local or multicast address" },
    ]);
  });

  it("accepts a private address literal when WEBHOOK_ALLOW_PRIVATE is set", () => {
    const result = checkCreate({ ...VALID, webhook_url: "https://127.0.0.1:9443/hook" }, NOW, {
      allowPrivateWebhooks: true,
    });
    expect("ok" in result && result.ok.webhookUrl).toBe("https://127.0.0.1:9443/hook");
  });

  it(`accepts a URL of exactly ${MAX_URL_LENGTH} characters and refuses one character more`, () => {
    const base = "https://hooks.example.com/";
    const exact = base + "a".repeat(MAX_URL_LENGTH - base.length);
    expect(exact).toHaveLength(MAX_URL_LENGTH);
    expect(accepted({ webhook_url: exact }).webhookUrl).toBe(exact);
    expect(refused({ webhook_url: `${exact}a` })).toEqual([
      { path: "webhook_url", message: `must be at most ${MAX_URL_LENGTH} characters` },
    ]);
  });

  it("leaves webhookUrl undefined when none is given", () => {
    expect(accepted({ webhook_url: undefined }).webhookUrl).toBeUndefined();
  });
});

describe("checkCreate: expires_at", () => {
  const NOT_ISO = "must be an ISO 8601 date-time with a time zone";

  it.each([
    "2030-01-01",
    "tomorrow",
    "2030-01-01T00:00:00",
    "2030-01-01T00:00:00.000",
    "2030-01-01 00:00:00Z",
    "2030-01-01t00:00:00z",
    "2030-01-01T00:00:00+0200",
    "2030-01-01T00:00:00 UTC",
    "2030-13-01T00:00:00Z",
    "2030-01-01T25:00:00Z",
    "1893456000000",
    "Tue, 01 Jan 2030 00:00:00 GMT",
    "",
  ])("when expires_at is %j then it must be an ISO 8601 date-time with a time zone", (expires_at) => {
    expect(refused({ expires_at })).toEqual([{ path: "expires_at", message: NOT_ISO }]);
  });

  it.each([
    ["equal to now", "2026-01-01T00:00:00.000Z"],
    ["equal to now, written with an offset", "2026-01-01T02:00:00+02:00"],
    ["one millisecond in the past", "2025-12-31T23:59:59.999Z"],
    ["a year in the past", "2025-01-01T00:00:00Z"],
    ["in the past once its offset is applied", "2026-01-01T01:00:00+02:00"],
  ])("when expires_at is %s then it must be in the future", (_, expires_at) => {
    expect(refused({ expires_at })).toEqual([{ path: "expires_at", message: "must be in the future" }]);
  });

  it.each([
    ["2026-01-01T00:00:00.001Z", "2026-01-01T00:00:00.001Z"],
    ["2030-01-01T00:00:00Z", "2030-01-01T00:00:00.000Z"],
    ["2030-01-01T00:00Z", "2030-01-01T00:00:00.000Z"],
    ["2030-06-15T12:30:45.123Z", "2030-06-15T12:30:45.123Z"],
    ["2030-01-01T02:00:00+02:00", "2030-01-01T00:00:00.000Z"],
    ["2029-12-31T19:00:00-05:00", "2030-01-01T00:00:00.000Z"],
  ])("when expires_at is the future instant %j then it becomes %s", (expires_at, iso) => {
    expect(accepted({ expires_at }).expiresAt?.toISOString()).toBe(iso);
  });

  it("uses the clock it is given, not the wall clock", () => {
    const input = { ...VALID, expires_at: "2030-01-01T00:00:00Z" };
    expect("ok" in checkCreate(input, Date.parse("2029-12-31T23:59:59.999Z"))).toBe(true);
    expect("ok" in checkCreate(input, Date.parse("2030-01-01T00:00:00.000Z"))).toBe(false);
  });
});

describe("checkCreate: several problems", () => {
  it("reports every problem at once, in field order", () => {
    expect(
      checkCreate(
        {
          label: "   ",
          permissions: ["TRADE", "GOD_MODE"],
          ip_whitelist: ["1.2.3.4", "300.0.0.1", "10.0.0.0/40"],
          webhook_url: "http://hooks.example.com",
          expires_at: "2020-01-01T00:00:00Z",
        },
        NOW,
      ),
    ).toEqual({
      issues: [
        { path: "label", message: "label is required" },
        { path: "permissions.1", message: "unknown scope: use READ_ONLY, TRADE or MANAGE_ORDERS" },
        { path: "ip_whitelist.1", message: "must be an IP address or CIDR range" },
        { path: "ip_whitelist.2", message: "CIDR prefix length must be at most 32" },
        { path: "webhook_url", message: "must start with https://" },
        { path: "expires_at", message: "must be in the future" },
      ],
    });
  });

  it("reports an empty permissions list next to the other problems", () => {
    expect(
      pathsOf({
        label: "a".repeat(MAX_LABEL_LENGTH + 1),
        permissions: [],
        webhook_url: "https://u:p@x.example",
        expires_at: "soon",
      }),
    ).toEqual(["label", "permissions", "webhook_url", "expires_at"]);
  });
});

describe("checkCreate edge cases found in review", () => {
  const base = { label: "bot", permissions: ["READ_ONLY"], ip_whitelist: [] as string[] };

  it.each([
    "2030-02-30T00:00:00Z",
    "2030-04-31T00:00:00Z",
    "2030-02-29T00:00:00Z",
    "2030-13-01T00:00:00Z",
    "2030-01-01T24:00:00Z",
  ])("refuses the impossible date-time %s instead of shifting it", (expires_at) => {
    const result = checkCreate({ ...base, expires_at }, 0);
    expect(result).toEqual({
      issues: [{ path: "expires_at", message: "must be an ISO 8601 date-time with a time zone" }],
    });
  });

  it("accepts a leap day in a leap year", () => {
    const result = checkCreate({ ...base, expires_at: "2032-02-29T12:00:00+02:00" }, 0);
    expect("ok" in result && result.ok.expiresAt?.toISOString()).toBe("2032-02-29T10:00:00.000Z");
  });

  it.each(["https:///path", "https:////evil.example/x", "https://x.com/#"])(
    "refuses the misleading webhook URL %s",
    (webhook_url) => {
      const result = checkCreate({ ...base, webhook_url }, 0);
      expect("issues" in result && result.issues.map((i) => i.path)).toEqual(["webhook_url"]);
    },
  );
});
