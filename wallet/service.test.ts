// WalletService's last-used bookkeeping: uses are batched in memory and written by flushLastUsed; a list
// answered while that write is in flight must still show them (the write has not landed yet).
import { describe, expect, it } from "vitest";
import { createLogger } from "../kernel/log.js";
import type { KeyIndex } from "./key-index.js";
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
