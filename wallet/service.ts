// The wallet's business logic: create, list, revoke and validate API keys. Transport-free, so the gRPC
// server and the tests drive the same code.
import { ServiceError } from "../kernel/errors.js";
import { COMMIT_GRACE_MS, callDeadline } from "../kernel/call-deadline.js";
import type { Logger } from "../kernel/log.js";
import { checkCreate, type CreateInput } from "./keys/create-rules.js";
import { generateKeyMaterial, generateWebhookSecret, looksLikeSecret, secretMatches } from "./keys/material.js";
import { isScope, satisfies, type Scope } from "../kernel/scopes.js";
import type { Sealer } from "./keys/sealed.js";
import type { KeyIndex, IndexedKey } from "./key-index.js";
import type { RevocationBus } from "./revocation-bus.js";
import type { KeyRow, KeyStore } from "./store.js";
import { UNAUTHORIZED, type Denial, type Validation } from "./validation.js";

export const MAX_ACTIVE_KEYS = 10;
/** Most user or key ids one GetWebhookTargets call may name. */
const MAX_TARGET_QUERY = 1000;

export interface ApiKeyView {
  id: string;
  keyPrefix: string;
  label: string;
  permissions: string[];
  ipWhitelist: string[];
  webhookUrl: string | undefined;
  expiresAt: string | undefined;
  createdAt: string;
  lastUsedAt: string | undefined;
}

export interface Created {
  apiKey: ApiKeyView;
  key: string;
  secret: string;
  webhookSecret: string | undefined;
}

export { DENIALS, type Denial, type Validation } from "./validation.js";

export interface ValidateInput {
  key: string;
  secret: string;
  ip: string;
  /** Required scope; empty checks identity only. */
  permission: string;
}

export interface WalletServiceDeps {
  store: KeyStore;
  index: KeyIndex;
  bus: RevocationBus;
  sealer: Sealer;
  log: Logger;
  now: () => number;
  onValidation?: (outcome: "valid" | Denial, seconds: number) => void;
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivateWebhooks?: boolean;
}

const MAX_USER_ID_LENGTH = 128;

function requireUser(userId: string): string {
  if (userId.length === 0 || userId.length > MAX_USER_ID_LENGTH || /[^\x21-\x7e]/.test(userId)) {
    throw new ServiceError("unauthorized");
  }
  return userId;
}

export class WalletService {
  /** Last use per key id since the last flush; written in one statement by `flushLastUsed`. */
  private lastUsed = new Map<string, number>();
  /** The batch `flushLastUsed` is writing. */
  private flushing: Map<string, number> | undefined;

  constructor(private readonly deps: WalletServiceDeps) {
    deps.bus.onRevoked((notice) => {
      deps.index.revoke(Buffer.from(notice.keyHash, "base64"));
    });
  }

  async create(userId: string, input: CreateInput): Promise<Created> {
    requireUser(userId);
    const deadline = callDeadline();
    const decideBy = deadline === undefined ? undefined : deadline - COMMIT_GRACE_MS;
    const nowMs = this.deps.now();
    const checked = checkCreate(input, nowMs, { allowPrivateWebhooks: this.deps.allowPrivateWebhooks ?? false });
    if ("issues" in checked) throw ServiceError.invalid(checked.issues);
    const { label, permissions, ipWhitelist, webhookUrl, expiresAt } = checked.ok;
    const material = generateKeyMaterial();
    const webhookSecret = webhookUrl === undefined ? undefined : generateWebhookSecret();
    const row = await this.deps.store.createWithinLimit(
      {
        userId,
        keyHash: material.keyHash,
        keyPrefix: material.keyPrefix,
        secretHash: material.secretHash,
        label,
        permissions,
        ipWhitelist,
        webhookUrl: webhookUrl ?? null,
        webhookSecretSealed: webhookSecret === undefined ? null : this.deps.sealer.seal(webhookSecret),
        expiresAt: expiresAt ?? null,
        createdAt: new Date(nowMs),
      },
      MAX_ACTIVE_KEYS,
      new Date(nowMs),
      decideBy,
    );
    if (row === "limit") throw new ServiceError("key_limit_reached", { limit: MAX_ACTIVE_KEYS });
    this.deps.index.put(material.keyHash, row);
    this.deps.log.info({ userId, keyId: row.id, keyPrefix: row.keyPrefix }, "api key created");
    return { apiKey: this.view(row), key: material.key, secret: material.secret, webhookSecret };
  }

  /**
   * The webhook dispatcher's view (docs/webhooks.md): active keys with an enabled webhook, of these users or
   * with these ids, secrets opened, each with its expiry (the dispatcher checks it before every attempt). Never
   * logged; only the internal gRPC surface calls this.
   */
  async webhookTargets(
    userIds: readonly string[],
    keyIds: readonly string[],
  ): Promise<{ apiKeyId: string; userId: string; url: string; secret: string; expiresAtMs: number | null }[]> {
    if (userIds.length > MAX_TARGET_QUERY || keyIds.length > MAX_TARGET_QUERY) {
      throw ServiceError.invalid([{ path: "user_ids", message: `at most ${MAX_TARGET_QUERY} ids per call` }]);
    }
    const rows = await this.deps.store.webhookTargets(userIds, keyIds, new Date(this.deps.now()));
    return rows.map((row) => ({
      apiKeyId: row.id,
      userId: row.userId,
      url: row.url,
      secret: this.deps.sealer.open(row.sealedSecret),
      expiresAtMs: row.expiresAt === null ? null : row.expiresAt.getTime(),
    }));
  }

  async disableWebhook(keyId: string): Promise<boolean> {
    const disabled = await this.deps.store.disableWebhook(keyId, new Date(this.deps.now()));
    if (disabled) this.deps.log.info({ keyId }, "webhook disabled (receiver answered 410 Gone)");
    return disabled;
  }

  async list(userId: string): Promise<ApiKeyView[]> {
    requireUser(userId);
    const rows = await this.deps.store.listActive(userId, new Date(this.deps.now()));
    return rows.map((row) => this.view(row));
  }

  /** One of the user's active keys; `not_found` for any other id (unknown, another user's, revoked, expired). */
  async get(userId: string, id: string): Promise<ApiKeyView> {
    requireUser(userId);
    const row = await this.deps.store.findActive(userId, id, new Date(this.deps.now()));
    if (row === undefined) throw new ServiceError("not_found");
    return this.view(row);
  }

  async revoke(userId: string, id: string): Promise<{ id: string; revokedAt: string }> {
    requireUser(userId);
    const revoked = await this.deps.store.revoke(userId, id, new Date(this.deps.now()));
    if (revoked === undefined) throw new ServiceError("not_found");
    // The stored id, not the caller's spelling of it (a UUID in upper case names the same key).
    const keyId = revoked.id;
    this.deps.index.revoke(revoked.keyHash);
    this.lastUsed.delete(keyId);
    await this.deps.bus.publish({ keyId, keyHash: revoked.keyHash.toString("base64") });
    this.deps.log.info({ userId, keyId }, "api key revoked");
    return { id: keyId, revokedAt: revoked.revokedAt.toISOString() };
  }

  /** The hot path: one hash, one map lookup, one constant-time compare. See `validateNow`. */
  validate(input: ValidateInput): Promise<Validation> {
    try {
      const result = this.validateNow(input);
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (error) {
      // Like an async function: a failure is a rejected promise, never a synchronous throw.
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * `validate` without a promise when the index answers at once (a hit, a known miss, a malformed key): the
   * common case costs no await and no microtask. Only a key that must be read from the database gives a
   * promise. Throws ServiceError for an unknown scope.
   */
  validateNow(input: ValidateInput): Validation | Promise<Validation> {
    const started = performance.now();
    const result = this.check(input);
    if (result instanceof Promise) return result.then((settled) => this.observed(settled, started));
    return this.observed(result, started);
  }

  private observed(result: Validation, started: number): Validation {
    this.deps.onValidation?.(result.valid ? "valid" : result.code, (performance.now() - started) / 1000);
    return result;
  }

  private check(input: ValidateInput): Validation | Promise<Validation> {
    let required: Scope | undefined;
    if (input.permission !== "") {
      if (!isScope(input.permission)) {
        throw ServiceError.invalid([{ path: "permission", message: "unknown scope" }]);
      }
      required = input.permission;
    }
    if (!looksLikeSecret(input.secret)) return UNAUTHORIZED;
    // Checks the key's format on a miss; a key it has found before costs no digest.
    const found = this.deps.index.lookupKey(input.key);
    if (found instanceof Promise) return found.then((entry) => this.decide(input, required, entry));
    return this.decide(input, required, found);
  }

  private decide(input: ValidateInput, required: Scope | undefined, entry: IndexedKey | undefined): Validation {
    if (entry === undefined || !secretMatches(input.secret, entry.secretHash)) return UNAUTHORIZED;
    const nowMs = this.deps.now();
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= nowMs) return UNAUTHORIZED;
    this.lastUsed.set(entry.id, nowMs);
    // The key's own frozen answers (wallet/validation.ts): no object per call, and the same object each time.
    if (!entry.allow.allows(input.ip)) return entry.answers.ipDenied;
    if (required !== undefined && !satisfies(entry.permissions, required)) return entry.answers.scopeDenied;
    return entry.answers.granted;
  }

  /** Loads every active key into the index (at start). */
  async warm(): Promise<number> {
    const rows = await this.deps.store.loadAllActive(new Date(this.deps.now()));
    for (const row of rows) this.deps.index.put(row.keyHash, row);
    return rows.length;
  }

  /** Uses reported by the gateways' key caches (validations they answered without asking the wallet). */
  noteUsed(uses: readonly { keyId: string; atMs: number }[]): void {
    for (const { keyId, atMs } of uses) {
      if (!Number.isFinite(atMs) || atMs <= 0) continue;
      if ((this.lastUsed.get(keyId) ?? 0) < atMs) this.lastUsed.set(keyId, atMs);
    }
  }

  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = this.lastUsed;
    this.lastUsed = new Map();
    // Still shown by `view` while the write is in flight: a list read in between must not lose the use.
    this.flushing = batch;
    try {
      await this.deps.store.touch(batch);
    } catch (error) {
      // Keep the newest use of each key for the next flush.
      for (const [id, at] of batch) if ((this.lastUsed.get(id) ?? 0) < at) this.lastUsed.set(id, at);
      throw error;
    } finally {
      if (this.flushing === batch) this.flushing = undefined;
    }
  }

  private view(row: KeyRow): ApiKeyView {
    const queued = this.lastUsed.get(row.id);
    const inFlight = this.flushing?.get(row.id);
    const pending = queued === undefined ? inFlight : Math.max(queued, inFlight ?? 0);
    const stored = row.lastUsedAt?.getTime();
    const lastUsed = pending === undefined ? stored : Math.max(pending, stored ?? 0);
    return {
      id: row.id,
      keyPrefix: row.keyPrefix,
      label: row.label,
      permissions: row.permissions,
      ipWhitelist: row.ipWhitelist,
      webhookUrl: row.webhookUrl ?? undefined,
      expiresAt: row.expiresAt?.toISOString(),
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: lastUsed === undefined ? undefined : new Date(lastUsed).toISOString(),
    };
  }
}
