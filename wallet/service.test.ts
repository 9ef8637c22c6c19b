// WalletService's last-used bookkeeping: uses are batched in memory and written by flushLastUsed; a list
// answered while that write is in flight must still show them (the write has not landed yet).
import { describe, expect, it } from "vitest";
import { createLogger } from "../kernel/log.js";
import { KeyIndex } from "./key-index.js";
import { generateKeyMaterial } from "./keys/material.js";
import { masterKeyFromBase64, Sealer } from "./keys/sealed.js";
import type { RevocationBus } from "./revocation-bus.js";
import { WalletService } from "./service.js";
import type { KeyRow, KeyStore } from "./store.js";

const ROW: KeyRow = {
  id: "3f6c1f0e-2f55-4d8b-a8a4-1b2d8c3e9f70",
  userId: "erin",
  keyHash: Buffer.alloc(32),
  keyPrefix: "svc_ak_abcd",
  secretHash: Buffer.alloc(32),
  label: "bot",
  permissions: ["READ_ONLY"],
  ipWhitelist: [],
  webhookUrl: null,
  expiresAt: null,
  createdAt: new Date("2026-11-25T12:00:00.000Z"),
  lastUsedAt: null,
};

describe("validate", () => {
  function setup(expiresAt: Date | null = null, nowMs = Date.parse("2026-11-25T12:05:00.000Z")) {
    const material = generateKeyMaterial();
    const row: KeyRow = {
      ...ROW,
      keyHash: material.keyHash,
      secretHash: material.secretHash,
      ipWhitelist: ["10.0.0.0/8"],
      expiresAt,
    };
    const index = new KeyIndex({ load: () => Promise.resolve(undefined), now: () => 0 });
    index.put(row.keyHash, row);
    let revoked: (notice: { keyId: string; keyHash: string }) => void = () => undefined;
    const service = new WalletService({
      store: {} as unknown as KeyStore,
      index,
      bus: {
        onRevoked: (listener: typeof revoked) => {
          revoked = listener;
        },
      } as unknown as RevocationBus,
      sealer: new Sealer(masterKeyFromBase64(Buffer.alloc(32, 7).toString("base64"))),
      log: createLogger("wallet", "silent"),
      now: () => nowMs,
    });
    const input = { key: material.key, secret: material.secret, ip: "10.1.2.3", permission: "READ_ONLY" };
    const revoke = (): void => {
      revoked({ keyId: row.id, keyHash: row.keyHash.toString("base64") });
    };
    return { service, row, input, revoke };
  }

  it("answers repeat validations of a key with the same frozen answer, for each outcome", () => {
    const { service, row, input } = setup();
    const granted = service.validateNow(input);
    expect(granted).toEqual({
      valid: true,
      userId: row.userId,
      keyId: row.id,
      permissions: ["READ_ONLY"],
      ipWhitelist: ["10.0.0.0/8"],
      expiresAtMs: null,
    });
    expect(Object.isFrozen(granted)).toBe(true);
    expect(service.validateNow(input)).toBe(granted);
    const outside = { ...input, ip: "203.0.113.9" };
    expect(service.validateNow(outside)).toMatchObject({ valid: false, code: "ip_not_whitelisted", keyId: row.id });
    expect(service.validateNow(outside)).toBe(service.validateNow(outside));
    const manage = { ...input, permission: "MANAGE_ORDERS" };
    expect(service.validateNow(manage)).toMatchObject({ valid: false, code: "permission_denied", keyId: row.id });
    const wrong = { ...input, secret: "svc_sk_" + "0".repeat(48) };
    expect(service.validateNow(wrong)).toEqual({ valid: false, code: "unauthorized" });
  });

  it("when a key that was validated is revoked then its next validation is unauthorized", () => {
    const { service, input, revoke } = setup();
    expect(service.validateNow(input)).toMatchObject({ valid: true });
    expect(service.validateNow(input)).toMatchObject({ valid: true });
    revoke();
    expect(service.validateNow(input)).toEqual({ valid: false, code: "unauthorized" });
  });

  it("refuses a key from the very millisecond of its expiresAt, and accepts it one millisecond before", () => {
    const expiresAt = new Date("2026-11-25T12:05:00.000Z");
    const at = (ms: number) => setup(expiresAt, expiresAt.getTime() + ms);
    const before = at(-1);
    expect(before.service.validateNow(before.input)).toMatchObject({ valid: true, expiresAtMs: expiresAt.getTime() });
    const exactly = at(0);
    expect(exactly.service.validateNow(exactly.input)).toEqual({ valid: false, code: "unauthorized" });
    const after = at(1);
    expect(after.service.validateNow(after.input)).toEqual({ valid: false, code: "unauthorized" });
  });

  it("when the key or the secret is malformed then the answer is unauthorized", () => {
    const { service, input } = setup();
    expect(service.validateNow({ ...input, key: input.key.toUpperCase() })).toEqual({
      valid: false,
      code: "unauthorized",
    });
    expect(service.validateNow({ ...input, secret: input.secret + "0" })).toEqual({
      valid: false,
      code: "unauthorized",
    });
  });
});

describe("last used", () => {
  it("shows a use while its write is in flight, and after it landed", async () => {
    let stored: Date | null = null;
    let land = (): void => undefined;
    const store = {
      listActive: () => Promise.resolve([{ ...ROW, lastUsedAt: stored }]),
      touch: (uses: ReadonlyMap<string, number>) =>
        new Promise<void>((resolve) => {
          land = () => {
            stored = new Date(uses.get(ROW.id) ?? 0);
            resolve();
          };
        }),
    } as unknown as KeyStore;
    const service = new WalletService({
      store,
      index: {} as unknown as KeyIndex,
      bus: { onRevoked: () => undefined } as unknown as RevocationBus,
      sealer: new Sealer(masterKeyFromBase64(Buffer.alloc(32, 7).toString("base64"))),
      log: createLogger("wallet", "silent"),
      now: () => Date.parse("2026-11-25T12:05:00.000Z"),
    });
    const at = Date.parse("2026-11-25T12:01:00.000Z");
    service.noteUsed([{ keyId: ROW.id, atMs: at }]);
    expect((await service.list("erin"))[0]?.lastUsedAt).toBe("2026-11-25T12:01:00.000Z");

    const flushing = service.flushLastUsed();
    expect((await service.list("erin"))[0]?.lastUsedAt).toBe("2026-11-25T12:01:00.000Z");
    land();
    await flushing;
    expect((await service.list("erin"))[0]?.lastUsedAt).toBe("2026-11-25T12:01:00.000Z");
    expect(stored).toEqual(new Date(at));
  });
});

describe("webhook targets", () => {
  it("hands the dispatcher each key's expiry with its opened secret (null when it never expires)", async () => {
    const sealer = new Sealer(masterKeyFromBase64(Buffer.alloc(32, 7).toString("base64")));
    const expiresAt = new Date("2026-11-25T12:10:00.000Z");
    const rows = [
      { id: ROW.id, userId: "erin", url: "https://a.example/hook", sealedSecret: sealer.seal("whsec_a"), expiresAt },
      {
        id: "4a7d2c1e-0b6f-4c3e-9d8a-2f1e0c9b8a71",
        userId: "erin",
        url: "https://b.example/hook",
        sealedSecret: sealer.seal("whsec_b"),
        expiresAt: null,
      },
    ];
    const service = new WalletService({
      store: { webhookTargets: () => Promise.resolve(rows) } as unknown as KeyStore,
      index: {} as unknown as KeyIndex,
      bus: { onRevoked: () => undefined } as unknown as RevocationBus,
      sealer,
      log: createLogger("wallet", "silent"),
      now: () => Date.parse("2026-11-25T12:05:00.000Z"),
    });
    expect(await service.webhookTargets(["erin"], [])).toEqual([
      {
        apiKeyId: ROW.id,
        userId: "erin",
        url: "https://a.example/hook",
        secret: "whsec_a",
        expiresAtMs: expiresAt.getTime(),
      },
      {
        apiKeyId: "4a7d2c1e-0b6f-4c3e-9d8a-2f1e0c9b8a71",
        userId: "erin",
        url: "https://b.example/hook",
        secret: "whsec_b",
        expiresAtMs: null,
      },
    ]);
  });
});

describe("one key", () => {
  it("answers one of the user's active keys and not_found for any id the store does not find for that user", async () => {
    const asked: [string, string, number][] = [];
    const nowMs = Date.parse("2026-11-25T12:05:00.000Z");
    const store = {
      findActive: (userId: string, id: string, now: Date) => {
        asked.push([userId, id, now.getTime()]);
        return Promise.resolve(userId === ROW.userId && id === ROW.id ? ROW : undefined);
      },
    } as unknown as KeyStore;
    const service = new WalletService({
      store,
      index: {} as unknown as KeyIndex,
      bus: { onRevoked: () => undefined } as unknown as RevocationBus,
      sealer: new Sealer(masterKeyFromBase64(Buffer.alloc(32, 7).toString("base64"))),
      log: createLogger("wallet", "silent"),
      now: () => nowMs,
    });
    expect(await service.get("erin", ROW.id)).toMatchObject({ id: ROW.id, keyPrefix: "svc_ak_abcd", label: "bot" });
    await expect(service.get("mallory", ROW.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(service.get("erin", "4a7d2c1e-0b6f-4c3e-9d8a-2f1e0c9b8a71")).rejects.toMatchObject({
      code: "not_found",
    });
    // Activity (revoked, expired) is judged by the store at the wallet's clock.
    expect(asked.every(([, , at]) => at === nowMs)).toBe(true);
    await expect(service.get("", ROW.id)).rejects.toMatchObject({ code: "unauthorized" });
    expect(asked).toHaveLength(3);
  });
});
