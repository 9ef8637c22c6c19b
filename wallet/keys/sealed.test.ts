import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Sealer, loadOrCreateMasterKeyFile, masterKeyFromBase64, type MasterKey } from "./sealed.js";

const newMasterKey = (): MasterKey => masterKeyFromBase64(randomBytes(32).toString("base64"));

/** Decodes a sealed value, lets `change` edit the raw bytes, and encodes it back. */
function tamper(sealed: string, change: (raw: Buffer) => void): string {
  const [version = "", id = "", payload = ""] = sealed.split(".");
  const raw = Buffer.from(payload, "base64");
  change(raw);
  return `${version}.${id}.${raw.toString("base64")}`;
}

describe("masterKeyFromBase64", () => {
  it("accepts 32 bytes and names the key by the first 8 hex characters of their SHA-256", () => {
    const bytes = randomBytes(32);
    const key = masterKeyFromBase64(bytes.toString("base64"));
    expect(key.bytes.equals(bytes)).toBe(true);
    expect(key.id).toBe(createHash("sha256").update(bytes).digest("hex").slice(0, 8));
    expect(key.id).toMatch(/^[0-9a-f]{8}$/);
  });

  it("gives the same id to the same bytes and different ids to different bytes", () => {
    const encoded = randomBytes(32).toString("base64");
    expect(masterKeyFromBase64(encoded).id).toBe(masterKeyFromBase64(encoded).id);
    expect(newMasterKey().id).not.toBe(newMasterKey().id);
  });

  it.each([0, 1, 16, 24, 31, 33, 64])("refuses a key of %i bytes", (length) => {
    expect(() => masterKeyFromBase64(randomBytes(length).toString("base64"))).toThrow(/32 bytes/);
  });

  it("refuses text that is not base64 of 32 bytes", () => {
    expect(() => masterKeyFromBase64("not a key")).toThrow(/32 bytes/);
  });
});

describe("Sealer", () => {
  const current = newMasterKey();
  const sealer = new Sealer(current);

  it.each(["whsec_" + randomBytes(24).toString("base64"), "", "ünïcödé ✓ 🔑", "x".repeat(10_000)])(
    "opens what it sealed: %#",
    (plaintext) => {
      expect(sealer.open(sealer.seal(plaintext))).toBe(plaintext);
    },
  );

  it("writes v1, the current key's id and a payload", () => {
    expect(sealer.seal("secret").split(".")).toEqual(["v1", current.id, expect.stringMatching(/^[A-Za-z0-9+/]+=*$/)]);
  });

  it("never shows the plaintext in the sealed text, raw or base64", () => {
    const plaintext = "whsec_" + randomBytes(24).toString("base64");
    const sealed = sealer.seal(plaintext);
    expect(sealed).not.toContain(plaintext);
    expect(sealed).not.toContain(plaintext.slice("whsec_".length));
    expect(sealed).not.toContain(Buffer.from(plaintext).toString("base64"));
  });

  it("seals the same value differently each time (random IV)", () => {
    const sealed = Array.from({ length: 50 }, () => sealer.seal("same value"));
    expect(new Set(sealed).size).toBe(50);
    const ivs = sealed.map((s) =>
      Buffer.from(s.split(".")[2] ?? "", "base64")
        .subarray(0, 12)
        .toString("hex"),
    );
    expect(new Set(ivs).size).toBe(50);
    for (const s of sealed) expect(sealer.open(s)).toBe("same value");
  });

  it("when any byte of the payload (IV, tag or ciphertext) is changed then open throws", () => {
    const sealed = sealer.seal("whsec_payload-under-test");
    const length = Buffer.from(sealed.split(".")[2] ?? "", "base64").length;
    expect(length).toBe(12 + 16 + "whsec_payload-under-test".length);
    for (let i = 0; i < length; i++) {
      const forged = tamper(sealed, (raw) => {
        raw[i] = (raw[i] ?? 0) ^ 0x01;
      });
      expect(() => sealer.open(forged), `byte ${i}`).toThrow();
    }
  });

  it("when the payload is truncated or extended then open throws", () => {
    const sealed = sealer.seal("value");
    const [version, id, payload = ""] = sealed.split(".");
    const raw = Buffer.from(payload, "base64");
    expect(() => sealer.open(`${version}.${id}.${raw.subarray(0, -1).toString("base64")}`)).toThrow();
    expect(() =>
      sealer.open(`${version}.${id}.${Buffer.concat([raw, Buffer.from([0])]).toString("base64")}`),
    ).toThrow();
    expect(() => sealer.open(`${version}.${id}.`)).toThrow();
  });

  it("when the version or format is not v1.<id>.<payload> then open throws", () => {
    const [, id, payload] = sealer.seal("value").split(".");
    expect(() => sealer.open(`v2.${id}.${payload}`)).toThrow(/unknown sealed format/);
    expect(() => sealer.open(`v1.${id}`)).toThrow(/unknown sealed format/);
    expect(() => sealer.open("")).toThrow(/unknown sealed format/);
    expect(() => sealer.open("value")).toThrow(/unknown sealed format/);
  });

  it("when the sealed text names an unknown master key then open throws", () => {
    const [, , payload] = sealer.seal("value").split(".");
    expect(() => sealer.open(`v1.deadbeef.${payload}`)).toThrow(/unknown master key deadbeef/);
  });

  it("when the id is swapped for another known key's id then open throws", () => {
    const other = newMasterKey();
    const both = new Sealer(current, [other]);
    const [, , payload] = both.seal("value").split(".");
    expect(() => both.open(`v1.${other.id}.${payload}`)).toThrow();
  });

  it("when a value was sealed under an old master key then it opens once that key is passed as previous", () => {
    const old = newMasterKey();
    const sealedWithOld = new Sealer(old).seal("whsec_old");
    expect(new Sealer(current, [old]).open(sealedWithOld)).toBe("whsec_old");
    expect(new Sealer(current, [newMasterKey(), old]).open(sealedWithOld)).toBe("whsec_old");
  });

  it("when the old master key is not passed then the old value cannot be opened", () => {
    const old = newMasterKey();
    const sealedWithOld = new Sealer(old).seal("whsec_old");
    expect(() => new Sealer(current).open(sealedWithOld)).toThrow(/unknown master key/);
    expect(() => new Sealer(current, [newMasterKey()]).open(sealedWithOld)).toThrow(/unknown master key/);
  });

  it("after a rotation new values are sealed under the current key, not the previous one", () => {
    const old = newMasterKey();
    const rotated = new Sealer(current, [old]);
    const sealed = rotated.seal("new");
    expect(sealed.split(".")[1]).toBe(current.id);
    expect(new Sealer(current).open(sealed)).toBe("new");
    expect(() => new Sealer(old).open(sealed)).toThrow();
  });

  it("when a different master key happens to be given the same id then open throws instead of returning garbage", () => {
    const impostor: MasterKey = { id: current.id, bytes: randomBytes(32) };
    const sealed = sealer.seal("value");
    expect(() => new Sealer(impostor).open(sealed)).toThrow();
  });
});

describe("loadOrCreateMasterKeyFile", () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(path.join(tmpdir(), "sealed-test-"));
    dirs.push(dir);
    return dir;
  };

  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("creates webhook-master.key with mode 0600 holding a 32-byte base64 key", () => {
    const dir = tempDir();
    const key = loadOrCreateMasterKeyFile(dir);
    const file = path.join(dir, "webhook-master.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readFileSync(file, "utf8").trim();
    expect(Buffer.from(stored, "base64")).toHaveLength(32);
    expect(key.bytes.equals(Buffer.from(stored, "base64"))).toBe(true);
    expect(key.id).toBe(masterKeyFromBase64(stored).id);
  });

  it("returns the same key on a second call and leaves the file unchanged", () => {
    const dir = tempDir();
    const first = loadOrCreateMasterKeyFile(dir);
    const file = path.join(dir, "webhook-master.key");
    const before = readFileSync(file, "utf8");
    const second = loadOrCreateMasterKeyFile(dir);
    expect(second.id).toBe(first.id);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("creates the data directory when it does not exist yet", () => {
    const dir = path.join(tempDir(), "nested", "data");
    const key = loadOrCreateMasterKeyFile(dir);
    expect(statSync(path.join(dir, "webhook-master.key")).mode & 0o777).toBe(0o600);
    expect(loadOrCreateMasterKeyFile(dir).id).toBe(key.id);
  });

  it("gives different directories different keys", () => {
    expect(loadOrCreateMasterKeyFile(tempDir()).id).not.toBe(loadOrCreateMasterKeyFile(tempDir()).id);
  });

  it("tightens an existing file to mode 0600 and keeps its key", () => {
    const dir = tempDir();
    const file = path.join(dir, "webhook-master.key");
    const encoded = randomBytes(32).toString("base64");
    writeFileSync(file, `${encoded}\n`);
    chmodSync(file, 0o644);
    const key = loadOrCreateMasterKeyFile(dir);
    expect(key.id).toBe(masterKeyFromBase64(encoded).id);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses an existing file that does not hold a 32-byte key", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "webhook-master.key"), randomBytes(16).toString("base64"));
    expect(() => loadOrCreateMasterKeyFile(dir)).toThrow(/32 bytes/);
  });

  it("seals with a key loaded from the file and opens after reloading it", () => {
    const dir = tempDir();
    const sealed = new Sealer(loadOrCreateMasterKeyFile(dir)).seal("whsec_persisted");
    expect(new Sealer(loadOrCreateMasterKeyFile(dir)).open(sealed)).toBe("whsec_persisted");
  });
});
