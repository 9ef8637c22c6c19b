import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  KEY_PREFIX,
  SECRET_PREFIX,
  WEBHOOK_SECRET_PREFIX,
  generateKeyMaterial,
  generateWebhookSecret,
  looksLikeKey,
  looksLikeSecret,
  secretMatches,
  sha256,
} from "./material.js";

const nodeSha256 = (value: string): Buffer => createHash("sha256").update(value).digest();
const HEX48 = "0123456789abcdef".repeat(3);

describe("generateKeyMaterial", () => {
  it("makes a public key of svc_ak_ and 48 lowercase hex characters", () => {
    const { key } = generateKeyMaterial();
    expect(KEY_PREFIX).toBe("svc_ak_");
    expect(key).toMatch(/^svc_ak_[0-9a-f]{48}$/);
  });

  it("makes a secret of svc_sk_ and 48 lowercase hex characters", () => {
    const { secret } = generateKeyMaterial();
    expect(SECRET_PREFIX).toBe("svc_sk_");
    expect(secret).toMatch(/^svc_sk_[0-9a-f]{48}$/);
  });

  it("makes a keyPrefix of svc_ak_ and the first 8 hex characters of the key", () => {
    const { key, keyPrefix } = generateKeyMaterial();
    expect(keyPrefix).toMatch(/^svc_ak_[0-9a-f]{8}$/);
    expect(keyPrefix).toBe(`svc_ak_${key.slice(7, 15)}`);
    expect(key.startsWith(keyPrefix)).toBe(true);
  });

  it("stores the SHA-256 of the raw key and of the raw secret", () => {
    const material = generateKeyMaterial();
    expect(material.keyHash).toHaveLength(32);
    expect(material.secretHash).toHaveLength(32);
    expect(material.keyHash.equals(nodeSha256(material.key))).toBe(true);
    expect(material.secretHash.equals(nodeSha256(material.secret))).toBe(true);
  });

  it("never reuses the secret's random part for the key", () => {
    const { key, secret } = generateKeyMaterial();
    expect(key.slice(KEY_PREFIX.length)).not.toBe(secret.slice(SECRET_PREFIX.length));
  });

  it("makes 1000 distinct keys, secrets and hashes", () => {
    const batch = Array.from({ length: 1000 }, () => generateKeyMaterial());
    expect(new Set(batch.map((m) => m.key)).size).toBe(1000);
    expect(new Set(batch.map((m) => m.secret)).size).toBe(1000);
    expect(new Set(batch.map((m) => m.keyHash.toString("hex"))).size).toBe(1000);
    expect(new Set(batch.map((m) => m.secretHash.toString("hex"))).size).toBe(1000);
  });

  it("makes keys that looksLikeKey and secrets that looksLikeSecret accept", () => {
    for (let i = 0; i < 100; i++) {
      const { key, secret } = generateKeyMaterial();
      expect(looksLikeKey(key)).toBe(true);
      expect(looksLikeSecret(secret)).toBe(true);
      expect(looksLikeKey(secret)).toBe(false);
      expect(looksLikeSecret(key)).toBe(false);
    }
  });
});

describe("generateWebhookSecret", () => {
  it("makes whsec_ and the base64 of exactly 24 bytes", () => {
    const secret = generateWebhookSecret();
    expect(WEBHOOK_SECRET_PREFIX).toBe("whsec_");
    expect(secret.startsWith("whsec_")).toBe(true);
    const encoded = secret.slice("whsec_".length);
    expect(encoded).toMatch(/^[A-Za-z0-9+/]{32}$/);
    const bytes = Buffer.from(encoded, "base64");
    expect(bytes).toHaveLength(24);
    expect(bytes.toString("base64")).toBe(encoded);
  });

  it("makes 1000 distinct webhook secrets", () => {
    expect(new Set(Array.from({ length: 1000 }, () => generateWebhookSecret())).size).toBe(1000);
  });
});

describe("sha256", () => {
  it.each(["", "svc_ak_" + HEX48, "naïve ünïcödé"])("matches node:crypto for %j", (value) => {
    expect(sha256(value).equals(nodeSha256(value))).toBe(true);
  });
});

describe("secretMatches", () => {
  const { secret, secretHash } = generateKeyMaterial();

  it("when the presented secret is the one that was hashed then it matches", () => {
    expect(secretMatches(secret, secretHash)).toBe(true);
  });

  it("when another secret is presented then it does not match", () => {
    expect(secretMatches(generateKeyMaterial().secret, secretHash)).toBe(false);
  });

  it("when the presented secret differs in its last character then it does not match", () => {
    const last = secret.at(-1);
    const altered = secret.slice(0, -1) + (last === "0" ? "1" : "0");
    expect(altered).toHaveLength(secret.length);
    expect(secretMatches(altered, secretHash)).toBe(false);
  });

  it("when the presented secret differs in its first hex character then it does not match", () => {
    const first = secret[SECRET_PREFIX.length];
    const altered = SECRET_PREFIX + (first === "a" ? "b" : "a") + secret.slice(SECRET_PREFIX.length + 1);
    expect(secretMatches(altered, secretHash)).toBe(false);
  });

  it.each(["", secret.toUpperCase(), ` ${secret}`, `${secret} `, secret.slice(0, -1)])(
    "refuses the near miss %j",
    (presented) => {
      expect(secretMatches(presented, secretHash)).toBe(false);
    },
  );

  it("when the stored hash is not a 32-byte digest then it refuses without throwing", () => {
    expect(secretMatches(secret, secretHash.subarray(0, 16))).toBe(false);
    expect(secretMatches(secret, Buffer.alloc(0))).toBe(false);
  });

  it("when the key's hash is presented as the secret's hash then it does not match", () => {
    const material = generateKeyMaterial();
    expect(secretMatches(material.secret, material.keyHash)).toBe(false);
  });
});

describe("looksLikeKey", () => {
  it.each([
    [`svc_ak_${HEX48}`, true],
    [`svc_ak_${"0".repeat(48)}`, true],
    [`svc_ak_${"f".repeat(48)}`, true],
    [`svc_ak_${HEX48.toUpperCase()}`, false],
    [`svc_ak_${"A".repeat(48)}`, false],
    [`svc_ak_${HEX48.slice(1)}`, false],
    [`svc_ak_${HEX48}0`, false],
    [`svc_ak_${HEX48.slice(1)}g`, false],
    [`svc_sk_${HEX48}`, false],
    [`SVC_AK_${HEX48}`, false],
    [`svc_ak${HEX48}0`, false],
    [`xsvc_ak_${HEX48}`, false],
    [` svc_ak_${HEX48}`, false],
    [`svc_ak_${HEX48}\n`, false],
    ["svc_ak_", false],
    ["", false],
  ])("%j → %s", (value, expected) => {
    expect(looksLikeKey(value)).toBe(expected);
  });
});

describe("looksLikeSecret", () => {
  it.each([
    [`svc_sk_${HEX48}`, true],
    [`svc_sk_${"9".repeat(48)}`, true],
    [`svc_sk_${HEX48.toUpperCase()}`, false],
    [`svc_sk_${HEX48.slice(1)}`, false],
    [`svc_sk_${HEX48}a`, false],
    [`svc_sk_${HEX48.slice(1)}z`, false],
    [`svc_ak_${HEX48}`, false],
    [`SVC_SK_${HEX48}`, false],
    [`whsec_${HEX48}`, false],
    [`svc_sk_${HEX48} `, false],
    [`svc_sk_${HEX48}\n`, false],
    ["svc_sk_", false],
    ["", false],
  ])("%j → %s", (value, expected) => {
    expect(looksLikeSecret(value)).toBe(expected);
  });
});
