// Webhook secrets must be readable later (they sign deliveries), so they are sealed with AES-256-GCM under a
// master key from settings, never stored in clear. The sealed form names the master key it used, so the
// key can be rotated: `v1.<key id>.<base64(iv | tag | ciphertext)>`.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface MasterKey {
  id: string;
  bytes: Buffer;
}

export function masterKeyFromBase64(encoded: string): MasterKey {
  const bytes = Buffer.from(encoded, "base64");
  if (bytes.length !== 32) throw new Error("webhook master key must be 32 bytes, base64-encoded");
  return { id: createHash("sha256").update(bytes).digest("hex").slice(0, 8), bytes };
}

/**
 * The embedded default: a random master key created once under DATA_DIR (mode 0600). Production sets
 * WEBHOOK_MASTER_KEY instead.
 */
export function loadOrCreateMasterKeyFile(dataDir: string): MasterKey {
  const file = path.resolve(dataDir, "webhook-master.key");
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  }
  chmodSync(file, 0o600);
  return masterKeyFromBase64(readFileSync(file, "utf8").trim());
}

export class Sealer {
  private readonly byId: Map<string, MasterKey>;

  /** `current` seals; `current` and every key in `previous` open. */
  constructor(
    private readonly current: MasterKey,
    previous: readonly MasterKey[] = [],
  ) {
    this.byId = new Map([current, ...previous].map((k) => [k.id, k]));
  }

  /** The id of the key `seal` uses. */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** Whether `sealed` was sealed under the current key (a re-seal would not change its key). */
  isCurrent(sealed: string): boolean {
    return sealed.startsWith(`v1.${this.current.id}.`);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.current.bytes, iv);
    cipher.setAAD(Buffer.from(this.current.id));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `v1.${this.current.id}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
  }

  open(sealed: string): string {
    const [version, id, payload] = sealed.split(".");
    if (version !== "v1" || id === undefined || payload === undefined) throw new Error("unknown sealed format");
    const key = this.byId.get(id);
    if (key === undefined) throw new Error(`sealed with unknown master key ${id}`);
    const raw = Buffer.from(payload, "base64");
    const decipher = createDecipheriv("aes-256-gcm", key.bytes, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(id));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  }
}

/** The wallet's sealer from its settings: WEBHOOK_MASTER_KEY seals (else the key file in DATA_DIR), and it and
 * every key of WEBHOOK_MASTER_KEY_PREVIOUS open. */
export function sealerFromSettings(settings: {
  DATA_DIR: string;
  WEBHOOK_MASTER_KEY?: string | undefined;
  WEBHOOK_MASTER_KEY_PREVIOUS?: string | undefined;
}): Sealer {
  const current =
    settings.WEBHOOK_MASTER_KEY === undefined
      ? loadOrCreateMasterKeyFile(settings.DATA_DIR)
      : masterKeyFromBase64(settings.WEBHOOK_MASTER_KEY);
  const previous = (settings.WEBHOOK_MASTER_KEY_PREVIOUS ?? "")
    .split(",")
    .filter((k) => k.trim() !== "")
    .map((k) => masterKeyFromBase64(k.trim()));
  return new Sealer(current, previous);
}
