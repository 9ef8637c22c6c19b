import type * as grpc from "@grpc/grpc-js";
import type { MessageTypeDefinition } from "@grpc/proto-loader";

import type { ApiKey as _wallet_v1_ApiKey, ApiKey__Output as _wallet_v1_ApiKey__Output } from "./wallet/v1/ApiKey.js";
import type {
  CreateApiKeyRequest as _wallet_v1_CreateApiKeyRequest,
  CreateApiKeyRequest__Output as _wallet_v1_CreateApiKeyRequest__Output,
} from "./wallet/v1/CreateApiKeyRequest.js";
import type {
  CreateApiKeyResponse as _wallet_v1_CreateApiKeyResponse,
  CreateApiKeyResponse__Output as _wallet_v1_CreateApiKeyResponse__Output,
} from "./wallet/v1/CreateApiKeyResponse.js";
import type {
  DisableWebhookRequest as _wallet_v1_DisableWebhookRequest,
  DisableWebhookRequest__Output as _wallet_v1_DisableWebhookRequest__Output,
} from "./wallet/v1/DisableWebhookRequest.js";
import type {
  DisableWebhookResponse as _wallet_v1_DisableWebhookResponse,
  DisableWebhookResponse__Output as _wallet_v1_DisableWebhookResponse__Output,
} from "./wallet/v1/DisableWebhookResponse.js";
import type {
  GetApiKeyRequest as _wallet_v1_GetApiKeyRequest,
  GetApiKeyRequest__Output as _wallet_v1_GetApiKeyRequest__Output,
} from "./wallet/v1/GetApiKeyRequest.js";
import type {
  GetWebhookTargetsRequest as _wallet_v1_GetWebhookTargetsRequest,
  GetWebhookTargetsRequest__Output as _wallet_v1_GetWebhookTargetsRequest__Output,
} from "./wallet/v1/GetWebhookTargetsRequest.js";
import type {
  GetWebhookTargetsResponse as _wallet_v1_GetWebhookTargetsResponse,
  GetWebhookTargetsResponse__Output as _wallet_v1_GetWebhookTargetsResponse__Output,
} from "./wallet/v1/GetWebhookTargetsResponse.js";
import type {
  KeyRevoked as _wallet_v1_KeyRevoked,
  KeyRevoked__Output as _wallet_v1_KeyRevoked__Output,
} from "./wallet/v1/KeyRevoked.js";
import type { KeyUse as _wallet_v1_KeyUse, KeyUse__Output as _wallet_v1_KeyUse__Output } from "./wallet/v1/KeyUse.js";
import type {
  KeyUseBatch as _wallet_v1_KeyUseBatch,
  KeyUseBatch__Output as _wallet_v1_KeyUseBatch__Output,
} from "./wallet/v1/KeyUseBatch.js";
import type {
  ListApiKeysRequest as _wallet_v1_ListApiKeysRequest,
  ListApiKeysRequest__Output as _wallet_v1_ListApiKeysRequest__Output,
} from "./wallet/v1/ListApiKeysRequest.js";
import type {
  ListApiKeysResponse as _wallet_v1_ListApiKeysResponse,
  ListApiKeysResponse__Output as _wallet_v1_ListApiKeysResponse__Output,
} from "./wallet/v1/ListApiKeysResponse.js";
import type {
  RevokeApiKeyRequest as _wallet_v1_RevokeApiKeyRequest,
  RevokeApiKeyRequest__Output as _wallet_v1_RevokeApiKeyRequest__Output,
} from "./wallet/v1/RevokeApiKeyRequest.js";
import type {
  RevokeApiKeyResponse as _wallet_v1_RevokeApiKeyResponse,
  RevokeApiKeyResponse__Output as _wallet_v1_RevokeApiKeyResponse__Output,
} from "./wallet/v1/RevokeApiKeyResponse.js";
import type {
  ValidateApiKeyRequest as _wallet_v1_ValidateApiKeyRequest,
  ValidateApiKeyRequest__Output as _wallet_v1_ValidateApiKeyRequest__Output,
} from "./wallet/v1/ValidateApiKeyRequest.js";
import type {
  ValidateApiKeyResponse as _wallet_v1_ValidateApiKeyResponse,
  ValidateApiKeyResponse__Output as _wallet_v1_ValidateApiKeyResponse__Output,
} from "./wallet/v1/ValidateApiKeyResponse.js";
import type {
  WalletClient as _wallet_v1_WalletClient,
  WalletDefinition as _wallet_v1_WalletDefinition,
} from "./wallet/v1/Wallet.js";
import type {
  WatchKeysEvent as _wallet_v1_WatchKeysEvent,
  WatchKeysEvent__Output as _wallet_v1_WatchKeysEvent__Output,
} from "./wallet/v1/WatchKeysEvent.js";
import type {
  WatchKeysRequest as _wallet_v1_WatchKeysRequest,
  WatchKeysRequest__Output as _wallet_v1_WatchKeysRequest__Output,
} from "./wallet/v1/WatchKeysRequest.js";
import type {
  WebhookTarget as _wallet_v1_WebhookTarget,
  WebhookTarget__Output as _wallet_v1_WebhookTarget__Output,
} from "./wallet/v1/WebhookTarget.js";

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new (...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  wallet: {
    v1: {
      ApiKey: MessageTypeDefinition<_wallet_v1_ApiKey, _wallet_v1_ApiKey__Output>;
      CreateApiKeyRequest: MessageTypeDefinition<
        _wallet_v1_CreateApiKeyRequest,
        _wallet_v1_CreateApiKeyRequest__Output
      >;
      CreateApiKeyResponse: MessageTypeDefinition<
        _wallet_v1_CreateApiKeyResponse,
        _wallet_v1_CreateApiKeyResponse__Output
      >;
      DisableWebhookRequest: MessageTypeDefinition<
        _wallet_v1_DisableWebhookRequest,
        _wallet_v1_DisableWebhookRequest__Output
      >;
      DisableWebhookResponse: MessageTypeDefinition<
        _wallet_v1_DisableWebhookResponse,
        _wallet_v1_DisableWebhookResponse__Output
      >;
      GetApiKeyRequest: MessageTypeDefinition<_wallet_v1_GetApiKeyRequest, _wallet_v1_GetApiKeyRequest__Output>;
      GetWebhookTargetsRequest: MessageTypeDefinition<
        _wallet_v1_GetWebhookTargetsRequest,
        _wallet_v1_GetWebhookTargetsRequest__Output
      >;
      GetWebhookTargetsResponse: MessageTypeDefinition<
        _wallet_v1_GetWebhookTargetsResponse,
        _wallet_v1_GetWebhookTargetsResponse__Output
      >;
      KeyRevoked: MessageTypeDefinition<_wallet_v1_KeyRevoked, _wallet_v1_KeyRevoked__Output>;
      KeyUse: MessageTypeDefinition<_wallet_v1_KeyUse, _wallet_v1_KeyUse__Output>;
      KeyUseBatch: MessageTypeDefinition<_wallet_v1_KeyUseBatch, _wallet_v1_KeyUseBatch__Output>;
      ListApiKeysRequest: MessageTypeDefinition<_wallet_v1_ListApiKeysRequest, _wallet_v1_ListApiKeysRequest__Output>;
      ListApiKeysResponse: MessageTypeDefinition<
        _wallet_v1_ListApiKeysResponse,
        _wallet_v1_ListApiKeysResponse__Output
      >;
      RevokeApiKeyRequest: MessageTypeDefinition<
        _wallet_v1_RevokeApiKeyRequest,
        _wallet_v1_RevokeApiKeyRequest__Output
      >;
      RevokeApiKeyResponse: MessageTypeDefinition<
        _wallet_v1_RevokeApiKeyResponse,
        _wallet_v1_RevokeApiKeyResponse__Output
      >;
      ValidateApiKeyRequest: MessageTypeDefinition<
        _wallet_v1_ValidateApiKeyRequest,
        _wallet_v1_ValidateApiKeyRequest__Output
      >;
      ValidateApiKeyResponse: MessageTypeDefinition<
        _wallet_v1_ValidateApiKeyResponse,
        _wallet_v1_ValidateApiKeyResponse__Output
      >;
      Wallet: SubtypeConstructor<typeof grpc.Client, _wallet_v1_WalletClient> & {
        service: _wallet_v1_WalletDefinition;
      };
      WatchKeysEvent: MessageTypeDefinition<_wallet_v1_WatchKeysEvent, _wallet_v1_WatchKeysEvent__Output>;
      WatchKeysRequest: MessageTypeDefinition<_wallet_v1_WatchKeysRequest, _wallet_v1_WatchKeysRequest__Output>;
      WebhookTarget: MessageTypeDefinition<_wallet_v1_WebhookTarget, _wallet_v1_WebhookTarget__Output>;
    };
  };
}
