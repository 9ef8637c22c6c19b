// Original file: proto/wallet/v1/wallet.proto

import type * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import type {
  ApiKey as _wallet_v1_ApiKey,
  ApiKey__Output as _wallet_v1_ApiKey__Output,
} from "../../wallet/v1/ApiKey.js";
import type {
  CreateApiKeyRequest as _wallet_v1_CreateApiKeyRequest,
  CreateApiKeyRequest__Output as _wallet_v1_CreateApiKeyRequest__Output,
} from "../../wallet/v1/CreateApiKeyRequest.js";
import type {
  CreateApiKeyResponse as _wallet_v1_CreateApiKeyResponse,
  CreateApiKeyResponse__Output as _wallet_v1_CreateApiKeyResponse__Output,
} from "../../wallet/v1/CreateApiKeyResponse.js";
import type {
  DisableWebhookRequest as _wallet_v1_DisableWebhookRequest,
  DisableWebhookRequest__Output as _wallet_v1_DisableWebhookRequest__Output,
} from "../../wallet/v1/DisableWebhookRequest.js";
import type {
  DisableWebhookResponse as _wallet_v1_DisableWebhookResponse,
  DisableWebhookResponse__Output as _wallet_v1_DisableWebhookResponse__Output,
} from "../../wallet/v1/DisableWebhookResponse.js";
import type {
  GetApiKeyRequest as _wallet_v1_GetApiKeyRequest,
  GetApiKeyRequest__Output as _wallet_v1_GetApiKeyRequest__Output,
} from "../../wallet/v1/GetApiKeyRequest.js";
import type {
  GetWebhookTargetsRequest as _wallet_v1_GetWebhookTargetsRequest,
  GetWebhookTargetsRequest__Output as _wallet_v1_GetWebhookTargetsRequest__Output,
} from "../../wallet/v1/GetWebhookTargetsRequest.js";
import type {
  GetWebhookTargetsResponse as _wallet_v1_GetWebhookTargetsResponse,
  GetWebhookTargetsResponse__Output as _wallet_v1_GetWebhookTargetsResponse__Output,
} from "../../wallet/v1/GetWebhookTargetsResponse.js";
import type {
  ListApiKeysRequest as _wallet_v1_ListApiKeysRequest,
  ListApiKeysRequest__Output as _wallet_v1_ListApiKeysRequest__Output,
} from "../../wallet/v1/ListApiKeysRequest.js";
import type {
  ListApiKeysResponse as _wallet_v1_ListApiKeysResponse,
  ListApiKeysResponse__Output as _wallet_v1_ListApiKeysResponse__Output,
} from "../../wallet/v1/ListApiKeysResponse.js";
import type {
  RevokeApiKeyRequest as _wallet_v1_RevokeApiKeyRequest,
  RevokeApiKeyRequest__Output as _wallet_v1_RevokeApiKeyRequest__Output,
} from "../../wallet/v1/RevokeApiKeyRequest.js";
import type {
  RevokeApiKeyResponse as _wallet_v1_RevokeApiKeyResponse,
  RevokeApiKeyResponse__Output as _wallet_v1_RevokeApiKeyResponse__Output,
} from "../../wallet/v1/RevokeApiKeyResponse.js";
import type {
  ValidateApiKeyRequest as _wallet_v1_ValidateApiKeyRequest,
  ValidateApiKeyRequest__Output as _wallet_v1_ValidateApiKeyRequest__Output,
} from "../../wallet/v1/ValidateApiKeyRequest.js";
import type {
  ValidateApiKeyResponse as _wallet_v1_ValidateApiKeyResponse,
  ValidateApiKeyResponse__Output as _wallet_v1_ValidateApiKeyResponse__Output,
} from "../../wallet/v1/ValidateApiKeyResponse.js";
import type {
  WatchKeysEvent as _wallet_v1_WatchKeysEvent,
  WatchKeysEvent__Output as _wallet_v1_WatchKeysEvent__Output,
} from "../../wallet/v1/WatchKeysEvent.js";
import type {
  WatchKeysRequest as _wallet_v1_WatchKeysRequest,
  WatchKeysRequest__Output as _wallet_v1_WatchKeysRequest__Output,
} from "../../wallet/v1/WatchKeysRequest.js";

export interface WalletClient extends grpc.Client {
  CreateApiKey(
    argument: _wallet_v1_CreateApiKeyRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_CreateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  CreateApiKey(
    argument: _wallet_v1_CreateApiKeyRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_CreateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  CreateApiKey(
    argument: _wallet_v1_CreateApiKeyRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_CreateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  CreateApiKey(
    argument: _wallet_v1_CreateApiKeyRequest,
    callback: grpc.requestCallback<_wallet_v1_CreateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  createApiKey(
    argument: _wallet_v1_CreateApiKeyRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_CreateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  createApiKey(
    argument: _wallet_v1_CreateApiKeyRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_CreateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  createApiKey(
    argument: _wallet_v1_CreateApiKeyRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_CreateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  createApiKey(
    argument: _wallet_v1_CreateApiKeyRequest,
    callback: grpc.requestCallback<_wallet_v1_CreateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;

  DisableWebhook(
    argument: _wallet_v1_DisableWebhookRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_DisableWebhookResponse__Output>,
  ): grpc.ClientUnaryCall;
  DisableWebhook(
    argument: _wallet_v1_DisableWebhookRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_DisableWebhookResponse__Output>,
  ): grpc.ClientUnaryCall;
  DisableWebhook(
    argument: _wallet_v1_DisableWebhookRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_DisableWebhookResponse__Output>,
  ): grpc.ClientUnaryCall;
  DisableWebhook(
    argument: _wallet_v1_DisableWebhookRequest,
    callback: grpc.requestCallback<_wallet_v1_DisableWebhookResponse__Output>,
  ): grpc.ClientUnaryCall;
  disableWebhook(
    argument: _wallet_v1_DisableWebhookRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_DisableWebhookResponse__Output>,
  ): grpc.ClientUnaryCall;
  disableWebhook(
    argument: _wallet_v1_DisableWebhookRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_DisableWebhookResponse__Output>,
  ): grpc.ClientUnaryCall;
  disableWebhook(
    argument: _wallet_v1_DisableWebhookRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_DisableWebhookResponse__Output>,
  ): grpc.ClientUnaryCall;
  disableWebhook(
    argument: _wallet_v1_DisableWebhookRequest,
    callback: grpc.requestCallback<_wallet_v1_DisableWebhookResponse__Output>,
  ): grpc.ClientUnaryCall;

  GetApiKey(
    argument: _wallet_v1_GetApiKeyRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ApiKey__Output>,
  ): grpc.ClientUnaryCall;
  GetApiKey(
    argument: _wallet_v1_GetApiKeyRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_ApiKey__Output>,
  ): grpc.ClientUnaryCall;
  GetApiKey(
    argument: _wallet_v1_GetApiKeyRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ApiKey__Output>,
  ): grpc.ClientUnaryCall;
  GetApiKey(
    argument: _wallet_v1_GetApiKeyRequest,
    callback: grpc.requestCallback<_wallet_v1_ApiKey__Output>,
  ): grpc.ClientUnaryCall;
  getApiKey(
    argument: _wallet_v1_GetApiKeyRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ApiKey__Output>,
  ): grpc.ClientUnaryCall;
  getApiKey(
    argument: _wallet_v1_GetApiKeyRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_ApiKey__Output>,
  ): grpc.ClientUnaryCall;
  getApiKey(
    argument: _wallet_v1_GetApiKeyRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ApiKey__Output>,
  ): grpc.ClientUnaryCall;
  getApiKey(
    argument: _wallet_v1_GetApiKeyRequest,
    callback: grpc.requestCallback<_wallet_v1_ApiKey__Output>,
  ): grpc.ClientUnaryCall;

  GetWebhookTargets(
    argument: _wallet_v1_GetWebhookTargetsRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_GetWebhookTargetsResponse__Output>,
  ): grpc.ClientUnaryCall;
  GetWebhookTargets(
    argument: _wallet_v1_GetWebhookTargetsRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_GetWebhookTargetsResponse__Output>,
  ): grpc.ClientUnaryCall;
  GetWebhookTargets(
    argument: _wallet_v1_GetWebhookTargetsRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_GetWebhookTargetsResponse__Output>,
  ): grpc.ClientUnaryCall;
  GetWebhookTargets(
    argument: _wallet_v1_GetWebhookTargetsRequest,
    callback: grpc.requestCallback<_wallet_v1_GetWebhookTargetsResponse__Output>,
  ): grpc.ClientUnaryCall;
  getWebhookTargets(
    argument: _wallet_v1_GetWebhookTargetsRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_GetWebhookTargetsResponse__Output>,
  ): grpc.ClientUnaryCall;
  getWebhookTargets(
    argument: _wallet_v1_GetWebhookTargetsRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_GetWebhookTargetsResponse__Output>,
  ): grpc.ClientUnaryCall;
  getWebhookTargets(
    argument: _wallet_v1_GetWebhookTargetsRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_GetWebhookTargetsResponse__Output>,
  ): grpc.ClientUnaryCall;
  getWebhookTargets(
    argument: _wallet_v1_GetWebhookTargetsRequest,
    callback: grpc.requestCallback<_wallet_v1_GetWebhookTargetsResponse__Output>,
  ): grpc.ClientUnaryCall;

  ListApiKeys(
    argument: _wallet_v1_ListApiKeysRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ListApiKeysResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListApiKeys(
    argument: _wallet_v1_ListApiKeysRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_ListApiKeysResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListApiKeys(
    argument: _wallet_v1_ListApiKeysRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ListApiKeysResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListApiKeys(
    argument: _wallet_v1_ListApiKeysRequest,
    callback: grpc.requestCallback<_wallet_v1_ListApiKeysResponse__Output>,
  ): grpc.ClientUnaryCall;
  listApiKeys(
    argument: _wallet_v1_ListApiKeysRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ListApiKeysResponse__Output>,
  ): grpc.ClientUnaryCall;
  listApiKeys(
    argument: _wallet_v1_ListApiKeysRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_ListApiKeysResponse__Output>,
  ): grpc.ClientUnaryCall;
  listApiKeys(
    argument: _wallet_v1_ListApiKeysRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ListApiKeysResponse__Output>,
  ): grpc.ClientUnaryCall;
  listApiKeys(
    argument: _wallet_v1_ListApiKeysRequest,
    callback: grpc.requestCallback<_wallet_v1_ListApiKeysResponse__Output>,
  ): grpc.ClientUnaryCall;

  RevokeApiKey(
    argument: _wallet_v1_RevokeApiKeyRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_RevokeApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  RevokeApiKey(
    argument: _wallet_v1_RevokeApiKeyRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_RevokeApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  RevokeApiKey(
    argument: _wallet_v1_RevokeApiKeyRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_RevokeApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  RevokeApiKey(
    argument: _wallet_v1_RevokeApiKeyRequest,
    callback: grpc.requestCallback<_wallet_v1_RevokeApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  revokeApiKey(
    argument: _wallet_v1_RevokeApiKeyRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_RevokeApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  revokeApiKey(
    argument: _wallet_v1_RevokeApiKeyRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_RevokeApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  revokeApiKey(
    argument: _wallet_v1_RevokeApiKeyRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_RevokeApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  revokeApiKey(
    argument: _wallet_v1_RevokeApiKeyRequest,
    callback: grpc.requestCallback<_wallet_v1_RevokeApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;

  ValidateApiKey(
    argument: _wallet_v1_ValidateApiKeyRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ValidateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  ValidateApiKey(
    argument: _wallet_v1_ValidateApiKeyRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_ValidateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  ValidateApiKey(
    argument: _wallet_v1_ValidateApiKeyRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ValidateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  ValidateApiKey(
    argument: _wallet_v1_ValidateApiKeyRequest,
    callback: grpc.requestCallback<_wallet_v1_ValidateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  validateApiKey(
    argument: _wallet_v1_ValidateApiKeyRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ValidateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  validateApiKey(
    argument: _wallet_v1_ValidateApiKeyRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_wallet_v1_ValidateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  validateApiKey(
    argument: _wallet_v1_ValidateApiKeyRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_wallet_v1_ValidateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;
  validateApiKey(
    argument: _wallet_v1_ValidateApiKeyRequest,
    callback: grpc.requestCallback<_wallet_v1_ValidateApiKeyResponse__Output>,
  ): grpc.ClientUnaryCall;

  WatchKeys(
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientDuplexStream<_wallet_v1_WatchKeysRequest, _wallet_v1_WatchKeysEvent__Output>;
  WatchKeys(
    options?: grpc.CallOptions,
  ): grpc.ClientDuplexStream<_wallet_v1_WatchKeysRequest, _wallet_v1_WatchKeysEvent__Output>;
  watchKeys(
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientDuplexStream<_wallet_v1_WatchKeysRequest, _wallet_v1_WatchKeysEvent__Output>;
  watchKeys(
    options?: grpc.CallOptions,
  ): grpc.ClientDuplexStream<_wallet_v1_WatchKeysRequest, _wallet_v1_WatchKeysEvent__Output>;
}

export interface WalletHandlers extends grpc.UntypedServiceImplementation {
  CreateApiKey: grpc.handleUnaryCall<_wallet_v1_CreateApiKeyRequest__Output, _wallet_v1_CreateApiKeyResponse>;

  DisableWebhook: grpc.handleUnaryCall<_wallet_v1_DisableWebhookRequest__Output, _wallet_v1_DisableWebhookResponse>;

  GetApiKey: grpc.handleUnaryCall<_wallet_v1_GetApiKeyRequest__Output, _wallet_v1_ApiKey>;

  GetWebhookTargets: grpc.handleUnaryCall<
    _wallet_v1_GetWebhookTargetsRequest__Output,
    _wallet_v1_GetWebhookTargetsResponse
  >;

  ListApiKeys: grpc.handleUnaryCall<_wallet_v1_ListApiKeysRequest__Output, _wallet_v1_ListApiKeysResponse>;

  RevokeApiKey: grpc.handleUnaryCall<_wallet_v1_RevokeApiKeyRequest__Output, _wallet_v1_RevokeApiKeyResponse>;

  ValidateApiKey: grpc.handleUnaryCall<_wallet_v1_ValidateApiKeyRequest__Output, _wallet_v1_ValidateApiKeyResponse>;

  WatchKeys: grpc.handleBidiStreamingCall<_wallet_v1_WatchKeysRequest__Output, _wallet_v1_WatchKeysEvent>;
}

export interface WalletDefinition extends grpc.ServiceDefinition {
  CreateApiKey: MethodDefinition<
    _wallet_v1_CreateApiKeyRequest,
    _wallet_v1_CreateApiKeyResponse,
    _wallet_v1_CreateApiKeyRequest__Output,
    _wallet_v1_CreateApiKeyResponse__Output
  >;
  DisableWebhook: MethodDefinition<
    _wallet_v1_DisableWebhookRequest,
    _wallet_v1_DisableWebhookResponse,
    _wallet_v1_DisableWebhookRequest__Output,
    _wallet_v1_DisableWebhookResponse__Output
  >;
  GetApiKey: MethodDefinition<
    _wallet_v1_GetApiKeyRequest,
    _wallet_v1_ApiKey,
    _wallet_v1_GetApiKeyRequest__Output,
    _wallet_v1_ApiKey__Output
  >;
  GetWebhookTargets: MethodDefinition<
    _wallet_v1_GetWebhookTargetsRequest,
    _wallet_v1_GetWebhookTargetsResponse,
    _wallet_v1_GetWebhookTargetsRequest__Output,
    _wallet_v1_GetWebhookTargetsResponse__Output
  >;
  ListApiKeys: MethodDefinition<
    _wallet_v1_ListApiKeysRequest,
    _wallet_v1_ListApiKeysResponse,
    _wallet_v1_ListApiKeysRequest__Output,
    _wallet_v1_ListApiKeysResponse__Output
  >;
  RevokeApiKey: MethodDefinition<
    _wallet_v1_RevokeApiKeyRequest,
    _wallet_v1_RevokeApiKeyResponse,
    _wallet_v1_RevokeApiKeyRequest__Output,
    _wallet_v1_RevokeApiKeyResponse__Output
  >;
  ValidateApiKey: MethodDefinition<
    _wallet_v1_ValidateApiKeyRequest,
    _wallet_v1_ValidateApiKeyResponse,
    _wallet_v1_ValidateApiKeyRequest__Output,
    _wallet_v1_ValidateApiKeyResponse__Output
  >;
  WatchKeys: MethodDefinition<
    _wallet_v1_WatchKeysRequest,
    _wallet_v1_WatchKeysEvent,
    _wallet_v1_WatchKeysRequest__Output,
    _wallet_v1_WatchKeysEvent__Output
  >;
}
