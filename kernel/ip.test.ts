import { describe, expect, it } from "vitest";
import { checkEntry, compileAllowList, sourceBlock, unmapIPv4 } from "./ip.js";

const NOT_AN_ADDRESS = "must be an IP address or CIDR range";
const NOT_A_NUMBER = "CIDR prefix length must be a number";
const MAPPED_RANGE = "CIDR prefix length out of range for an IPv4-mapped range";

describe("unmapIPv4", () => {
  it.each([
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::FFFF:10.0.0.1", "10.0.0.1"],
    ["1.2.3.4", "1.2.3.4"],
    ["::1", "::1"],
    ["2001:db8::1", "2001:db8::1"],
    ["::ffff:a01:203", "::ffff:a01:203"],
    ["::1.2.3.4", "::1.2.3.4"],
    ["x::ffff:1.2.3.4", "x::ffff:1.2.3.4"],
    ["", ""],
  ])("turns %j into %j", (input, expected) => {
    expect(unmapIPv4(input)).toBe(expected);
  });
});

describe("checkEntry", () => {
  it.each([
    "1.2.3.4",
    "0.0.0.0",
    "255.255.255.255",
    "::",
    "::1",
    "2001:db8::1",
    "2001:0db8:0000:0000:0000:0000:0000:0001",
    "FE80::1",
    "::ffff:1.2.3.4",
    "10.0.0.0/8",
    "192.168.1.0/24",
    "10.0.0.5/8",
    "::/0",
    "2001:db8::/32",
    "::ffff:10.0.0.0/104",
    "::ffff:0.0.0.0/96",
    "::ffff:10.1.2.3/128",
  ])("accepts %j", (entry) => {
    expect(checkEntry(entry)).toBeUndefined();
  });

  it("accepts every IPv4 prefix length from /0 to /32", () => {
    const refused = Array.from({ length: 33 }, (_, bits) => `10.0.0.0/${bits}`).filter(
      (e) => checkEntry(e) !== undefined,
    );
    expect(refused).toEqual([]);
  });

  it("accepts every IPv6 prefix length from /0 to /128", () => {
    const refused = Array.from({ length: 129 }, (_, bits) => `2001:db8::/${bits}`).filter(
      (e) => checkEntry(e) !== undefined,
    );
    expect(refused).toEqual([]);
  });

  it.each([
    ["", NOT_AN_ADDRESS],
    ["1.2.3.4/33", "CIDR prefix length must be at most 32"],
    ["1.2.3.4/999", "CIDR prefix length must be at most 32"],
    ["2001:db8::/129", "CIDR prefix length must be at most 128"],
    ["1.2.3.4/x", NOT_A_NUMBER],
    ["1.2.3.4/", NOT_A_NUMBER],
    ["1.2.3.4/-1", NOT_A_NUMBER],
    ["1.2.3.4/+8", NOT_A_NUMBER],
    ["1.2.3.4/ 8", NOT_A_NUMBER],
    ["1.2.3.4/8.5", NOT_A_NUMBER],
    ["1.2.3.4/1000", NOT_A_NUMBER],
    ["1.2.3.4/24/1", NOT_AN_ADDRESS],
    ["/8", NOT_AN_ADDRESS],
    ["999.1.1.1", NOT_AN_ADDRESS],
    ["256.0.0.0", NOT_AN_ADDRESS],
    ["1.2.3", NOT_AN_ADDRESS],
    ["1.2.3.4.5", NOT_AN_ADDRESS],
    ["localhost", NOT_AN_ADDRESS],
    ["example.com", NOT_AN_ADDRESS],
    ["example.com/24", NOT_AN_ADDRESS],
    ["2001:db8::g", NOT_AN_ADDRESS],
    [":::1", NOT_AN_ADDRESS],
    [" 1.2.3.4", NOT_AN_ADDRESS],
    // node:net refuses leading zeros (they would be octal to some parsers)
    ["01.2.3.4", NOT_AN_ADDRESS],
    ["1.2.3.04", NOT_AN_ADDRESS],
    ["010.0.0.0/8", NOT_AN_ADDRESS],
    ["::ffff:999.1.1.1", NOT_AN_ADDRESS],
    ["::ffff:1.2.3.4/95", MAPPED_RANGE],
    ["::ffff:1.2.3.4/0", MAPPED_RANGE],
    ["::ffff:1.2.3.4/129", MAPPED_RANGE],
  ])("refuses %j with %j", (entry, message) => {
    expect(checkEntry(entry)).toBe(message);
  });
});

describe("compileAllowList", () => {
  it.each(["1.2.3.4", "::1", "::ffff:1.2.3.4", "not an address", ""])(
    "when the list is empty then %j is allowed",
    (candidate) => {
      expect(compileAllowList([]).allows(candidate)).toBe(true);
    },
  );

  it.each([
    // exact IPv4
    [["1.2.3.4"], "1.2.3.4", true],
    [["1.2.3.4"], "1.2.3.5", false],
    [["1.2.3.4/32"], "1.2.3.4", true],
    [["1.2.3.4/32"], "1.2.3.5", false],
    // IPv4 ranges: network and broadcast addresses are inside, their neighbours outside
    [["10.0.0.0/8"], "10.1.2.3", true],
    [["10.0.0.0/8"], "10.0.0.0", true],
    [["10.0.0.0/8"], "10.255.255.255", true],
    [["10.0.0.0/8"], "9.255.255.255", false],
    [["10.0.0.0/8"], "11.0.0.0", false],
    [["192.168.1.0/24"], "192.168.1.0", true],
    [["192.168.1.0/24"], "192.168.1.255", true],
    [["192.168.1.0/24"], "192.168.0.255", false],
    [["192.168.1.0/24"], "192.168.2.0", false],
    [["192.168.1.128/25"], "192.168.1.127", false],
    [["192.168.1.128/25"], "192.168.1.128", true],
    [["10.0.0.5/8"], "10.9.9.9", true],
    [["0.0.0.0/0"], "255.255.255.255", true],
    [["0.0.0.0/0"], "0.0.0.0", true],
    [["0.0.0.0/0"], "::1", false],
    // IPv6
    [["2001:db8::1"], "2001:db8::1", true],
    [["2001:db8::1"], "2001:DB8:0:0:0:0:0:1", true],
    [["2001:db8::1"], "2001:db8::2", false],
    [["2001:db8::/32"], "2001:db8::", true],
    [["2001:db8::/32"], "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true],
    [["2001:db8::/32"], "2001:db8:1234::1", true],
    [["2001:db8::/32"], "2001:db9::", false],
    [["2001:db8::/32"], "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false],
    [["2001:db8::/32"], "10.1.2.3", false],
    [["::1"], "::1", true],
    [["::1"], "127.0.0.1", false],
    [["2001:db8::1/128"], "2001:db8::1", true],
    [["2001:db8::1/128"], "2001:db8::2", false],
    // IPv4-mapped IPv6, on either side
    [["10.0.0.0/8"], "::ffff:10.1.2.3", true],
    [["10.0.0.0/8"], "::FFFF:10.1.2.3", true],
    [["10.0.0.0/8"], "::ffff:11.1.2.3", false],
    [["10.1.2.3"], "::ffff:10.1.2.3", true],
    [["::ffff:10.1.2.3"], "10.1.2.3", true],
    [["::ffff:10.1.2.3"], "10.1.2.4", false],
    [["::ffff:10.0.0.0/104"], "10.1.2.3", true],
    [["::ffff:10.0.0.0/104"], "::ffff:10.1.2.3", true],
    [["::ffff:10.0.0.0/104"], "11.0.0.0", false],
    [["::ffff:10.0.0.0/104"], "9.255.255.255", false],
    [["::ffff:192.168.1.0/120"], "192.168.1.200", true],
    [["::ffff:192.168.1.0/120"], "192.168.2.1", false],
    // several entries: any one matching is enough
    [["1.2.3.4", "10.0.0.0/8", "2001:db8::/32"], "1.2.3.4", true],
    [["1.2.3.4", "10.0.0.0/8", "2001:db8::/32"], "10.200.0.1", true],
    [["1.2.3.4", "10.0.0.0/8", "2001:db8::/32"], "2001:db8::beef", true],
    [["1.2.3.4", "10.0.0.0/8", "2001:db8::/32"], "192.168.0.1", false],
    [["1.2.3.4", "10.0.0.0/8", "2001:db8::/32"], "2001:db9::1", false],
  ])("when the list is %j then %j is allowed: %s", (entries, candidate, allowed) => {
    expect(compileAllowList(entries).allows(candidate)).toBe(allowed);
  });

  it.each(["", "garbage", "999.1.1.1", "01.2.3.4", "1.2.3.4 ", "1.2.3.4/32", "::ffff:999.1.1.1", "localhost"])(
    "when a list exists then the malformed candidate %j is refused",
    (candidate) => {
      expect(compileAllowList(["0.0.0.0/0", "::/0"]).allows(candidate)).toBe(false);
    },
  );

  it("compiles every entry that checkEntry accepts without throwing", () => {
    const entries = [
      "1.2.3.4",
      "10.0.0.0/0",
      "10.0.0.0/32",
      "::/0",
      "2001:db8::/128",
      "::ffff:1.2.3.4/96",
      "::ffff:1.2.3.4/128",
    ];
    for (const entry of entries) expect(checkEntry(entry)).toBeUndefined();
    expect(() => compileAllowList(entries)).not.toThrow();
  });
});

describe("checkEntry zone ids", () => {
  it("refuses an IPv6 entry with a zone id, which BlockList would silently ignore", () => {
    expect(checkEntry("fe80::1%eth0")).toBe("must not carry an IPv6 zone id");
  });
});

describe("sourceBlock", () => {
  it.each([
    ["1.2.3.4", "1.2.3.4"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::FFFF:10.0.0.1", "10.0.0.1"],
    ["::ffff:a01:203", "10.1.2.3"],
    ["0:0:0:0:0:ffff:0a01:0203", "10.1.2.3"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2::ffff", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:abcd::", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["2001:db8:0:1::1", "2001:db8:0:1::/64"],
    ["::1", "0:0:0:0::/64"],
    ["::", "0:0:0:0::/64"],
    ["::1.2.3.4", "0:0:0:0::/64"],
    ["64:ff9b::1.2.3.4", "64:ff9b:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["not an address", "not an address"],
    ["", ""],
  ])("counts %j as %j", (address, block) => {
    expect(sourceBlock(address)).toBe(block);
  });

  it("counts every address of one /64 as one source, and the next /64 as another", () => {
    const blocks = new Set(
      ["2001:db8:7:9::1", "2001:db8:7:9:ffff:ffff:ffff:ffff", "2001:db8:7:9:1234::"].map(sourceBlock),
    );
    expect(blocks).toEqual(new Set(["2001:db8:7:9::/64"]));
    expect(sourceBlock("2001:db8:7:a::1")).not.toBe(sourceBlock("2001:db8:7:9::1"));
  });
});
