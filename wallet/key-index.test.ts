import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { KeyIndex, SWEEP_EVERY_MS, toIndexed } from "./key-index.js";
import type { KeyRow } from "./store.js";

const sha = (value: string): Buffer => createHash("sha256").update(value).digest();

function keyRow(name: string, overrides: Partial<KeyRow> = {}): KeyRow {
  return {
    id: `00000000-0000-4000-8000-${sha(name).toString("hex").slice(0, 12)}`,
    userId: "11111111-1111-4111-8111-111111111111",
    keyHash: sha(`svc_ak_${name}`),
    keyPrefix: "svc_ak_01234567",
    secretHash: sha(`svc_sk_${name}`),
    label: name,
    permissions: ["READ_ONLY", "TRADE"],
    ipWhitelist: [],
    webhookUrl: null,
    expiresAt: null,
    createdAt: new Date("2026-01-01T00:00:00.000Z"),
    lastUsedAt: null,
    ...overrides,
  };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A KeyIndex over a fake database and a fake clock. `rows` is what the database holds; `pending`, when set,
 * makes the next loads wait on it instead.
 */
function setup(options: { negativeTtlMs?: number } = {}) {
  const rows = new Map<string, KeyRow>();
  const loads: Buffer[] = [];
  const clock = { now: 1_000_000 };
  let pending: Deferred<KeyRow | undefined> | undefined;
  let failure: Error | undefined;
  const index = new KeyIndex({
    load: (hash) => {
      loads.push(hash);
      if (failure !== undefined) return Promise.reject(failure);
      if (pending !== undefined) return pending.promise;
      return Promise.resolve(rows.get(hash.toString("hex")));
    },
    now: () => clock.now,
    ...options,
  });
  return {
    index,
    loads,
    clock,
    store: (row: KeyRow): void => {
      rows.set(row.keyHash.toString("hex"), row);
    },
    hold: (): Deferred<KeyRow | undefined> => {
      pending = deferred<KeyRow | undefined>();
      return pending;
    },
    release: (): void => {
      pending = undefined;
    },
    failWith: (error: Error | undefined): void => {
      failure = error;
    },
  };
}

describe("toIndexed", () => {
  it("keeps id, user, secret hash and permissions, and turns expiry into milliseconds", () => {
    const row = keyRow("a", { expiresAt: new Date("2030-01-01T00:00:00.000Z"), permissions: ["MANAGE_ORDERS"] });
    const indexed = toIndexed(row);
    expect(indexed.id).toBe(row.id);
    expect(indexed.userId).toBe(row.userId);
    expect(indexed.secretHash.equals(row.secretHash)).toBe(true);
    expect(indexed.permissions).toEqual(["MANAGE_ORDERS"]);
    expect(indexed.expiresAtMs).toBe(Date.parse("2030-01-01T00:00:00.000Z"));
  });

  it("when the key never expires then expiresAtMs is null", () => {
    expect(toIndexed(keyRow("a")).expiresAtMs).toBeNull();
  });

  it("when the key has no allow-list then every address is allowed", () => {
    expect(toIndexed(keyRow("a")).allow.allows("203.0.113.9")).toBe(true);
  });

  it("compiles the allow-list of the row", () => {
    const { allow } = toIndexed(keyRow("a", { ipWhitelist: ["10.0.0.0/8", "2001:db8::1"] }));
    expect(allow.allows("10.1.2.3")).toBe(true);
    expect(allow.allows("::ffff:10.1.2.3")).toBe(true);
    expect(allow.allows("2001:db8::1")).toBe(true);
    expect(allow.allows("11.0.0.1")).toBe(false);
  });
});

describe("KeyIndex: hits", () => {
  it("when a key was put then lookup answers synchronously without loading", () => {
    const { index, loads } = setup();
    const row = keyRow("a");
    index.put(row.keyHash, row);
    const found = index.lookup(row.keyHash);
    expect(found).not.toBeInstanceOf(Promise);
    expect(found).toMatchObject({ id: row.id, userId: row.userId });
    expect(loads).toHaveLength(0);
    expect(index.size).toBe(1);
  });

  it("finds a key by the content of its hash, not by the Buffer instance", () => {
    const { index } = setup();
    const row = keyRow("a");
    index.put(row.keyHash, row);
    expect(index.lookup(Buffer.from(row.keyHash))).toMatchObject({ id: row.id });
  });

  it("when a key is put again then the newer row replaces the older one", () => {
    const { index } = setup();
    const row = keyRow("a");
    index.put(row.keyHash, row);
    index.put(row.keyHash, { ...row, permissions: ["MANAGE_ORDERS"] });
    expect(index.lookup(row.keyHash)).toMatchObject({ permissions: ["MANAGE_ORDERS"] });
    expect(index.size).toBe(1);
  });

  it("keeps different keys apart", () => {
    const { index } = setup();
    const a = keyRow("a");
    const b = keyRow("b");
    index.put(a.keyHash, a);
    index.put(b.keyHash, b);
    expect(index.lookup(a.keyHash)).toMatchObject({ id: a.id });
    expect(index.lookup(b.keyHash)).toMatchObject({ id: b.id });
    expect(index.size).toBe(2);
  });
});

describe("KeyIndex: misses", () => {
  it("when a key is not indexed then it is loaded once by its hash and then served from memory", async () => {
    const { index, loads, store } = setup();
    const row = keyRow("a");
    store(row);
    const first = index.lookup(row.keyHash);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ id: row.id });
    expect(loads).toHaveLength(1);
    expect(loads[0]?.equals(row.keyHash)).toBe(true);

    const second = index.lookup(row.keyHash);
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toMatchObject({ id: row.id });
    expect(loads).toHaveLength(1);
    expect(index.size).toBe(1);
  });

  it("when several lookups miss the same hash at once then they share one load", async () => {
    const { index, loads, hold } = setup();
    const row = keyRow("a");
    const db = hold();
    const lookups = [index.lookup(row.keyHash), index.lookup(row.keyHash), index.lookup(row.keyHash)];
    expect(loads).toHaveLength(1);
    expect(lookups[1]).toBe(lookups[0]);
    expect(lookups[2]).toBe(lookups[0]);
    db.resolve(row);
    const results = await Promise.all(lookups.map(async (pending) => pending));
    expect(results.map((r) => r?.id)).toEqual([row.id, row.id, row.id]);
    expect(loads).toHaveLength(1);
  });

  it("loads different hashes separately", async () => {
    const { index, loads, store } = setup();
    const a = keyRow("a");
    const b = keyRow("b");
    store(a);
    store(b);
    const [foundA, foundB] = await Promise.all([index.lookup(a.keyHash), index.lookup(b.keyHash)]);
    expect(foundA?.id).toBe(a.id);
    expect(foundB?.id).toBe(b.id);
    expect(loads).toHaveLength(2);
  });
});

describe("KeyIndex: unknown hashes", () => {
  const unknown = sha("svc_ak_unknown");

  it("when a hash is unknown then it is remembered as a miss until negativeTtlMs has passed", async () => {
    const { index, loads, clock } = setup({ negativeTtlMs: 5_000 });
    expect(await index.lookup(unknown)).toBeUndefined();
    expect(loads).toHaveLength(1);

    clock.now += 4_999;
    expect(index.lookup(unknown)).toBeUndefined();
    expect(loads).toHaveLength(1);

    clock.now += 2;
    expect(await index.lookup(unknown)).toBeUndefined();
    expect(loads).toHaveLength(2);
  });

  it("when no negativeTtlMs is given then a miss is remembered for 30 seconds", async () => {
    const { index, loads, clock } = setup();
    expect(await index.lookup(unknown)).toBeUndefined();
    clock.now += 29_999;
    expect(index.lookup(unknown)).toBeUndefined();
    expect(loads).toHaveLength(1);
    clock.now += 2;
    await index.lookup(unknown);
    expect(loads).toHaveLength(2);
  });

  it("when the key appears in the database after the miss expired then the next lookup finds it", async () => {
    const { index, clock, store } = setup({ negativeTtlMs: 1_000 });
    const row = keyRow("late");
    expect(await index.lookup(row.keyHash)).toBeUndefined();
    store(row);
    expect(index.lookup(row.keyHash)).toBeUndefined();
    clock.now += 1_001;
    expect(await index.lookup(row.keyHash)).toMatchObject({ id: row.id });
  });

  it("when a remembered miss is put then it becomes a hit at once", async () => {
    const { index, loads } = setup();
    const row = keyRow("new");
    expect(await index.lookup(row.keyHash)).toBeUndefined();
    index.put(row.keyHash, row);
    expect(index.lookup(row.keyHash)).toMatchObject({ id: row.id });
    expect(loads).toHaveLength(1);
  });

  it("when concurrent lookups miss an unknown hash then they share one load", async () => {
    const { index, loads } = setup();
    const results = await Promise.all([index.lookup(unknown), index.lookup(unknown), index.lookup(unknown)]);
    expect(results).toEqual([undefined, undefined, undefined]);
    expect(loads).toHaveLength(1);
  });

  it("does not index anything for an unknown hash", async () => {
    const { index } = setup();
    await index.lookup(unknown);
    expect(index.size).toBe(0);
  });
});

describe("KeyIndex: revocation", () => {
  it("when an indexed key is revoked then lookups miss without asking the database", () => {
    const { index, loads, store } = setup();
    const row = keyRow("a");
    store(row);
    index.put(row.keyHash, row);
    index.revoke(row.keyHash);
    expect(index.lookup(row.keyHash)).toBeUndefined();
    expect(loads).toHaveLength(0);
    expect(index.size).toBe(0);
  });

  it("when a revoked key is put again then it stays revoked", () => {
    const { index } = setup();
    const row = keyRow("a");
    index.put(row.keyHash, row);
    index.revoke(row.keyHash);
    index.put(row.keyHash, row);
    expect(index.lookup(row.keyHash)).toBeUndefined();
    expect(index.size).toBe(0);
  });

  it("when a load was in flight as the key was revoked then its row is dropped, now and later", async () => {
    const { index, loads, hold, release } = setup();
    const row = keyRow("a");
    const db = hold();
    const lookup = index.lookup(row.keyHash);
    expect(lookup).toBeInstanceOf(Promise);

    index.revoke(row.keyHash);
    db.resolve(row);

    expect(await lookup).toBeUndefined();
    expect(index.size).toBe(0);
    release();
    expect(index.lookup(row.keyHash)).toBeUndefined();
    expect(loads).toHaveLength(1);
  });

  it("when several lookups were waiting on a load that raced a revocation then all of them miss", async () => {
    const { index, hold } = setup();
    const row = keyRow("a");
    const db = hold();
    const lookups = [index.lookup(row.keyHash), index.lookup(row.keyHash)];
    index.revoke(row.keyHash);
    db.resolve(row);
    expect(await Promise.all(lookups.map(async (pending) => pending))).toEqual([undefined, undefined]);
  });

  it("when a key was revoked before it was ever seen then it is never loaded", () => {
    const { index, loads, store } = setup();
    const row = keyRow("a");
    store(row);
    index.revoke(row.keyHash);
    expect(index.lookup(row.keyHash)).toBeUndefined();
    expect(loads).toHaveLength(0);
  });

  it("remembers a revocation however much time passes", () => {
    const { index, loads, clock, store } = setup({ negativeTtlMs: 1 });
    const row = keyRow("a");
    store(row);
    index.put(row.keyHash, row);
    index.revoke(row.keyHash);
    clock.now += 10 * 365 * 24 * 3_600_000;
    expect(index.lookup(row.keyHash)).toBeUndefined();
    index.put(row.keyHash, row);
    expect(index.lookup(row.keyHash)).toBeUndefined();
    expect(loads).toHaveLength(0);
  });

  it("revoking one key leaves the others in place", async () => {
    const { index, store } = setup();
    const a = keyRow("a");
    const b = keyRow("b");
    store(b);
    index.put(a.keyHash, a);
    index.revoke(a.keyHash);
    expect(index.lookup(a.keyHash)).toBeUndefined();
    expect(await index.lookup(b.keyHash)).toMatchObject({ id: b.id });
  });
});

describe("KeyIndex: load failures", () => {
  it("when the load fails then the lookup rejects with that error and the next lookup loads again", async () => {
    const { index, loads, store, failWith } = setup();
    const row = keyRow("a");
    store(row);
    const outage = new Error("database unavailable");
    failWith(outage);
    await expect(index.lookup(row.keyHash)).rejects.toBe(outage);
    expect(index.size).toBe(0);

    failWith(undefined);
    expect(await index.lookup(row.keyHash)).toMatchObject({ id: row.id });
    expect(loads).toHaveLength(2);
  });

  it("when the load fails then the hash is not remembered as a miss", async () => {
    const { index, loads, failWith } = setup({ negativeTtlMs: 60_000 });
    const hash = sha("svc_ak_unknown");
    failWith(new Error("timeout"));
    await expect(index.lookup(hash)).rejects.toThrow("timeout");
    failWith(undefined);
    expect(await index.lookup(hash)).toBeUndefined();
    expect(loads).toHaveLength(2);
  });

  it("when concurrent lookups share a failing load then all of them reject, and a later lookup retries", async () => {
    const { index, loads, hold, release, store } = setup();
    const row = keyRow("a");
    store(row);
    const db = hold();
    const first = index.lookup(row.keyHash);
    const second = index.lookup(row.keyHash);
    expect(loads).toHaveLength(1);
    db.reject(new Error("connection reset"));
    await expect(first).rejects.toThrow("connection reset");
    await expect(second).rejects.toThrow("connection reset");

    release();
    expect(await index.lookup(row.keyHash)).toMatchObject({ id: row.id });
    expect(loads).toHaveLength(2);
  });
});

describe("KeyIndex: by public key", () => {
  const publicKey = (name: string): string => `svc_ak_${sha(name).toString("hex").slice(0, 48)}`;
  const rowFor = (name: string, overrides: Partial<KeyRow> = {}): KeyRow =>
    keyRow(name, { keyHash: sha(publicKey(name)), ...overrides });

  it("finds a key by its public part, through the SHA-256 of it, and again without loading", () => {
    const { index, loads } = setup();
    const row = rowFor("a");
    index.put(row.keyHash, row);
    expect(index.lookupKey(publicKey("a"))).toMatchObject({ id: row.id });
    expect(index.lookupKey(publicKey("a"))).toMatchObject({ id: row.id });
    expect(loads).toHaveLength(0);
  });

  it("when a key is malformed then it answers undefined without loading", () => {
    const { index, loads } = setup();
    for (const key of ["", "svc_ak_", "svc_sk_" + "0".repeat(48), publicKey("a").toUpperCase(), publicKey("a") + "0"]) {
      expect(index.lookupKey(key)).toBeUndefined();
    }
    expect(loads).toHaveLength(0);
  });

  it("when a key found by its public part is revoked then it is not found any more", () => {
    const { index, loads } = setup();
    const row = rowFor("a");
    index.put(row.keyHash, row);
    expect(index.lookupKey(publicKey("a"))).toMatchObject({ id: row.id });
    index.revoke(row.keyHash);
    expect(index.lookupKey(publicKey("a"))).toBeUndefined();
    expect(loads).toHaveLength(0);
  });

  it("when a key found by its public part is put again then the newer row answers", () => {
    const { index } = setup();
    const row = rowFor("a");
    index.put(row.keyHash, row);
    expect(index.lookupKey(publicKey("a"))).toMatchObject({ permissions: ["READ_ONLY", "TRADE"] });
    index.put(row.keyHash, { ...row, permissions: ["MANAGE_ORDERS"] });
    expect(index.lookupKey(publicKey("a"))).toMatchObject({ permissions: ["MANAGE_ORDERS"] });
  });

  it("when a key must be loaded then it is found by its public part after the load", async () => {
    const { index, loads, store } = setup();
    const row = rowFor("a");
    store(row);
    expect(await index.lookupKey(publicKey("a"))).toMatchObject({ id: row.id });
    expect(index.lookupKey(publicKey("a"))).toMatchObject({ id: row.id });
    expect(loads).toHaveLength(1);
  });
});

describe("KeyIndex: answers", () => {
  it("builds each key's answers once, frozen, lists included", () => {
    const { index } = setup();
    const row = keyRow("a", { ipWhitelist: ["10.0.0.0/8"], expiresAt: new Date("2030-01-01T00:00:00.000Z") });
    index.put(row.keyHash, row);
    const found = index.lookup(row.keyHash);
    if (found === undefined || found instanceof Promise) throw new Error("expected a hit");
    const { granted, ipDenied, scopeDenied } = found.answers;
    expect(granted).toEqual({
      valid: true,
      userId: row.userId,
      keyId: row.id,
      permissions: ["READ_ONLY", "TRADE"],
      ipWhitelist: ["10.0.0.0/8"],
      expiresAtMs: Date.parse("2030-01-01T00:00:00.000Z"),
    });
    expect(ipDenied).toEqual({ valid: false, code: "ip_not_whitelisted", userId: row.userId, keyId: row.id });
    expect(scopeDenied).toEqual({ valid: false, code: "permission_denied", userId: row.userId, keyId: row.id });
    for (const frozen of [found.answers, granted, ipDenied, scopeDenied, granted.permissions, granted.ipWhitelist]) {
      expect(Object.isFrozen(frozen)).toBe(true);
    }
    expect(index.lookup(row.keyHash)).toBe(found);
  });

  it("a change to the row's lists after indexing does not reach the answers", () => {
    const { index } = setup();
    const row = keyRow("a", { ipWhitelist: ["10.0.0.0/8"] });
    index.put(row.keyHash, row);
    row.permissions.push("MANAGE_ORDERS");
    row.ipWhitelist.push("0.0.0.0/0");
    const found = index.lookup(row.keyHash);
    if (found === undefined || found instanceof Promise) throw new Error("expected a hit");
    expect(found.answers.granted.permissions).toEqual(["READ_ONLY", "TRADE"]);
    expect(found.answers.granted.ipWhitelist).toEqual(["10.0.0.0/8"]);
  });
});

describe("KeyIndex: expired keys", () => {
  const publicKey = (name: string): string => `svc_ak_${sha(name).toString("hex").slice(0, 48)}`;
  const rowFor = (name: string, expiresAtMs: number | null): KeyRow =>
    keyRow(name, {
      keyHash: sha(publicKey(name)),
      expiresAt: expiresAtMs === null ? null : new Date(expiresAtMs),
    });

  it("holds no more than the live keys and those expired since the last sweep, however many expire", () => {
    // One user creating 10 keys a second that live one second: 1,000 keys over 100 s.
    const { index, clock } = setup();
    const lasting = rowFor("lasting", null);
    index.put(lasting.keyHash, lasting);
    let largest = 0;
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < 10; i++) {
        const row = rowFor(`k-${String(round)}-${String(i)}`, clock.now + 1_000);
        index.put(row.keyHash, row);
        largest = Math.max(largest, index.size);
      }
      clock.now += 1_001;
    }
    // At most the keys of the rounds since the last sweep (SWEEP_EVERY_MS of them), the lasting one and this round.
    const bound = 1 + 10 * (Math.ceil(SWEEP_EVERY_MS / 1_001) + 1);
    expect(largest).toBeLessThanOrEqual(bound);
    index.sweepExpired(clock.now);
    expect(index.size).toBe(1);
    expect(index.lookupKey(publicKey("lasting"))).toMatchObject({ id: lasting.id });
  });

  it("drops an expired key at the sweep, also from the lookup by public key, and keeps one expiring later", () => {
    const { index, clock, loads, store } = setup();
    const soon = rowFor("soon", clock.now + 5_000);
    const later = rowFor("later", clock.now + 60_000);
    for (const row of [soon, later]) {
      index.put(row.keyHash, row);
      store(row);
    }
    expect(index.lookupKey(publicKey("soon"))).toMatchObject({ id: soon.id });
    // At the expiry instant the key is gone, as the wallet judges expiry (expiresAt itself refuses).
    index.sweepExpired(clock.now + 5_000);
    expect(index.size).toBe(1);
    expect(index.lookupKey(publicKey("later"))).toMatchObject({ id: later.id });
    expect(loads).toHaveLength(0);
    // A lookup after the sweep asks the database, which still holds the expired row: it is not indexed again.
    clock.now += 5_000;
    const reloaded = index.lookupKey(publicKey("soon"));
    expect(reloaded).toBeInstanceOf(Promise);
    return (reloaded as Promise<unknown>).then((found) => {
      expect(found).toBeUndefined();
      expect(index.size).toBe(1);
      // Remembered as a miss: the next lookup does not load it again.
      expect(index.lookupKey(publicKey("soon"))).toBeUndefined();
      expect(loads).toHaveLength(1);
    });
  });

  it("when a key is revoked then the sweep has nothing of it left to drop", () => {
    const { index, clock } = setup();
    const row = rowFor("r", clock.now + 1_000);
    index.put(row.keyHash, row);
    index.revoke(row.keyHash);
    index.sweepExpired(clock.now + 2_000);
    expect(index.size).toBe(0);
  });
});
