// gRPC clients of the gateway: one long-lived channel each to the wallet and the engine, behind small typed
// facades that return promises and attach the request id and the internal token.
import * as grpc from "@grpc/grpc-js";
import { CHANNEL_OPTIONS, loadEngineProto, loadWalletProto, outgoingMetadata } from "../kernel/grpc.js";
import type { WalletClient } from "../proto/gen/wallet/v1/Wallet.js";
import type { EngineClient } from "../proto/gen/engine/v1/Engine.js";
import type { CreateApiKeyRequest } from "../proto/gen/wallet/v1/CreateApiKeyRequest.js";
import type { CreateApiKeyResponse__Output } from "../proto/gen/wallet/v1/CreateApiKeyResponse.js";
import type { ListApiKeysResponse__Output } from "../proto/gen/wallet/v1/ListApiKeysResponse.js";
import type { RevokeApiKeyResponse__Output } from "../proto/gen/wallet/v1/RevokeApiKeyResponse.js";
import type { ValidateApiKeyRequest } from "../proto/gen/wallet/v1/ValidateApiKeyRequest.js";
import type { ValidateApiKeyResponse__Output } from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";
import type { ListTickersResponse__Output } from "../proto/gen/engine/v1/ListTickersResponse.js";
import type { ListPlansResponse__Output } from "../proto/gen/engine/v1/ListPlansResponse.js";

const DEADLINE_MS = 10_000;

function settle<T>(resolve: (value: T) => void, reject: (error: unknown) => void): grpc.requestCallback<T> {
  return (error, response) => {
    if (error) reject(error);
    else if (response === undefined) reject(new Error("empty gRPC response"));
    else resolve(response);
  };
}

const options = (): grpc.CallOptions => ({ deadline: Date.now() + DEADLINE_MS });

export class WalletApi {
  constructor(
    readonly client: WalletClient,
    private readonly token: string | undefined,
  ) {}

  createApiKey(request: CreateApiKeyRequest, requestId: string): Promise<CreateApiKeyResponse__Output> {
    return new Promise((resolve, reject) => {
      this.client.CreateApiKey(request, outgoingMetadata(requestId, this.token), options(), settle(resolve, reject));
    });
  }

  listApiKeys(userId: string, requestId: string): Promise<ListApiKeysResponse__Output> {
    return new Promise((resolve, reject) => {
      this.client.ListApiKeys(
        { user_id: userId },
        outgoingMetadata(requestId, this.token),
        options(),
        settle(resolve, reject),
      );
    });
  }

  revokeApiKey(userId: string, id: string, requestId: string): Promise<RevokeApiKeyResponse__Output> {
    return new Promise((resolve, reject) => {
      this.client.RevokeApiKey(
        { user_id: userId, id },
        outgoingMetadata(requestId, this.token),
        options(),
        settle(resolve, reject),
      );
    });
  }

  validateApiKey(request: ValidateApiKeyRequest, requestId: string): Promise<ValidateApiKeyResponse__Output> {
    return new Promise((resolve, reject) => {
      this.client.ValidateApiKey(request, outgoingMetadata(requestId, this.token), options(), settle(resolve, reject));
    });
  }
}

export class EngineApi {
  constructor(
    readonly client: EngineClient,
    private readonly token: string | undefined,
  ) {}

  listTickers(requestId: string): Promise<ListTickersResponse__Output> {
    return new Promise((resolve, reject) => {
      this.client.ListTickers({}, outgoingMetadata(requestId, this.token), options(), settle(resolve, reject));
    });
  }

  listPlans(requestId: string): Promise<ListPlansResponse__Output> {
    return new Promise((resolve, reject) => {
      this.client.ListPlans({}, outgoingMetadata(requestId, this.token), options(), settle(resolve, reject));
    });
  }
}

export interface Clients {
  wallet: WalletApi;
  engine: EngineApi;
  close(): void;
}

export function createClients(walletTarget: string, engineTarget: string, internalToken: string | undefined): Clients {
  const credentials = grpc.credentials.createInsecure();
  const wallet = new (loadWalletProto().wallet.v1.Wallet)(walletTarget, credentials, CHANNEL_OPTIONS);
  const engine = new (loadEngineProto().engine.v1.Engine)(engineTarget, credentials, CHANNEL_OPTIONS);
  return {
    wallet: new WalletApi(wallet, internalToken),
    engine: new EngineApi(engine, internalToken),
    close() {
      wallet.close();
      engine.close();
    },
  };
}

/** Resolves true when the client's channel connects within `timeoutMs`. */
export async function reachable(client: grpc.Client, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    client.waitForReady(Date.now() + timeoutMs, (error) => {
      resolve(error === undefined || error === null);
    });
  });
}
