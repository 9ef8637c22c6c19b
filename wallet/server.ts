// gRPC bindings of the wallet service: translation between proto messages and WalletService.
import * as grpc from "@grpc/grpc-js";
import { unary, CHANNEL_OPTIONS } from "../kernel/grpc.js";
import { walletServiceDefinition } from "../kernel/wallet-codec.js";
import type { WalletHandlers } from "../proto/gen/wallet/v1/Wallet.js";
import type { ApiKey } from "../proto/gen/wallet/v1/ApiKey.js";
import type { ValidateApiKeyResponse } from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";
import type { ApiKeyView, WalletService } from "./service.js";
import type { Validation } from "./validation.js";
import { watchKeysHandler, type KeyWatchers } from "./watchers.js";
import type { RpcMetrics } from "../kernel/rpc-metrics.js";

function toProto(view: ApiKeyView): ApiKey {
  return {
    id: view.id,
    key_prefix: view.keyPrefix,
    label: view.label,
    permissions: view.permissions,
    ip_whitelist: view.ipWhitelist,
    webhook_url: view.webhookUrl,
    expires_at: view.expiresAt,
    created_at: view.createdAt,
    last_used_at: view.lastUsedAt,
  };
}

// The arrays are the index's own frozen lists, passed without a copy: ValidateApiKey's serializer
// (kernel/wallet-codec.ts) only reads them, synchronously, when the answer is sent.
function toValidateResponse(result: Validation): ValidateApiKeyResponse {
  if (result.valid) {
    return {
      valid: true,
      user_id: result.userId,
      key_id: result.keyId,
      permissions: result.permissions as string[],
      expires_at_ms: result.expiresAtMs ?? 0,
      code: "",
      ip_whitelist: result.ipWhitelist as string[],
    };
  }
  return {
    valid: false,
    code: result.code,
    user_id: "userId" in result ? result.userId : "",
    key_id: "keyId" in result ? result.keyId : "",
  };
}

/**
 * Validations are mostly a key's frozen answers (wallet/validation.ts), the same object on every call: each
 * gets one frozen response, which the codec encodes once (kernel/wallet-codec.ts, `encodeValidateResponseOnce`).
 * Weak keys: an answer and its response go when the key leaves the index.
 */
function validateResponses(): (result: Validation) => ValidateApiKeyResponse {
  const responses = new WeakMap<Validation, ValidateApiKeyResponse>();
  return (result) => {
    if (!Object.isFrozen(result)) return toValidateResponse(result);
    let response = responses.get(result);
    if (response === undefined) {
      response = Object.freeze(toValidateResponse(result));
      responses.set(result, response);
    }
    return response;
  };
}

export interface WalletServerOptions {
  internalToken: string | undefined;
  /** The gateways' key caches (WatchKeys). */
  watchers: KeyWatchers;
  onError: (method: string, error: unknown, requestId: string | undefined) => void;
  /** gRPC latency by method and code; none when metrics are off. */
  metrics?: RpcMetrics | undefined;
}

export function createWalletServer(service: WalletService, options: WalletServerOptions): grpc.Server {
  const server = new grpc.Server(CHANNEL_OPTIONS);
  const unaryOptions = { ...options, service: "wallet.v1.Wallet", backend: "wallet" as const };
  const respond = validateResponses();
  const handlers: WalletHandlers = {
    CreateApiKey: unary(
      "CreateApiKey",
      async (request) => {
        const created = await service.create(request.user_id, {
          label: request.label,
          permissions: request.permissions,
          ip_whitelist: request.ip_whitelist,
          webhook_url: request.webhook_url,
          expires_at: request.expires_at,
        });
        return {
          api_key: toProto(created.apiKey),
          key: created.key,
          secret: created.secret,
          webhook_secret: created.webhookSecret,
        };
      },
      unaryOptions,
    ),
    ListApiKeys: unary(
      "ListApiKeys",
      async (request) => ({ api_keys: (await service.list(request.user_id)).map(toProto) }),
      unaryOptions,
    ),
    GetApiKey: unary(
      "GetApiKey",
      async (request) => toProto(await service.get(request.user_id, request.id)),
      unaryOptions,
    ),
    RevokeApiKey: unary(
      "RevokeApiKey",
      async (request) => {
        const revoked = await service.revoke(request.user_id, request.id);
        return { id: revoked.id, revoked_at: revoked.revokedAt };
      },
      unaryOptions,
    ),
    // The hot path: answered in the same tick when the index can (no promise, no microtask).
    ValidateApiKey: unary(
      "ValidateApiKey",
      (request) => {
        const result = service.validateNow(request);
        return result instanceof Promise ? result.then(respond) : respond(result);
      },
      unaryOptions,
    ),
    WatchKeys: watchKeysHandler(options.watchers, options.internalToken),
    GetWebhookTargets: unary(
      "GetWebhookTargets",
      async (request) => ({
        targets: (await service.webhookTargets(request.user_ids, request.key_ids)).map((t) => ({
          api_key_id: t.apiKeyId,
          user_id: t.userId,
          url: t.url,
          secret: t.secret,
          expires_at_ms: t.expiresAtMs ?? 0,
        })),
      }),
      unaryOptions,
    ),
    DisableWebhook: unary(
      "DisableWebhook",
      async (request) => ({ disabled: await service.disableWebhook(request.api_key_id) }),
      unaryOptions,
    ),
  };
  // ValidateApiKey's messages go through the hand-written codec; every other method through proto-loader.
  server.addService(walletServiceDefinition(), handlers);
  return server;
}
