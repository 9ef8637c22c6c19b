// The dispatcher's view of the wallet: GetWebhookTargets and DisableWebhook over wallet.v1, with the internal
// token. The secrets it returns stay in memory for one dispatch round and are never logged.
import * as grpc from "@grpc/grpc-js";
import { CHANNEL_OPTIONS, call, outgoingMetadata } from "../../kernel/grpc.js";
import { createWalletClient } from "../../kernel/wallet-codec.js";
import type { GetWebhookTargetsResponse__Output } from "../../proto/gen/wallet/v1/GetWebhookTargetsResponse.js";
import type { WatchStream } from "../../kernel/key-cache.js";
import type { KeyDirectory, WebhookTarget } from "./targets.js";

const DEADLINE_MS = 5_000;
/** The wallet accepts at most this many ids of each kind per call. */
const CHUNK = 1000;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

export interface WalletDirectory extends KeyDirectory {
  /** Opens a WatchKeys stream (revocations pushed by the wallet, see kernel/key-cache.ts). */
  watch(): WatchStream;
  close(): void;
}

export function walletDirectory(
  target: string,
  token: string | undefined,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
): WalletDirectory {
  const client = createWalletClient(target, credentials, CHANNEL_OPTIONS);
  const fetch = async (userIds: readonly string[], keyIds: readonly string[]): Promise<WebhookTarget[]> => {
    const reply = await call<{ user_ids: string[]; key_ids: string[] }, GetWebhookTargetsResponse__Output>(
      (req, m, o, cb) => client.GetWebhookTargets(req, m, o, cb),
      { user_ids: [...userIds], key_ids: [...keyIds] },
      outgoingMetadata(undefined, token),
      DEADLINE_MS,
    );
    return reply.targets.map((t) => ({
      apiKeyId: t.api_key_id,
      userId: t.user_id,
      url: t.url,
      secret: t.secret,
      // 0 when the key never expires (or from a wallet that does not send the field yet).
      expiresAt: t.expires_at_ms === 0 ? null : t.expires_at_ms,
    }));
  };

  return {
    async targets(query) {
      const found: WebhookTarget[] = [];
      for (const ids of chunks(query.userIds ?? [])) found.push(...(await fetch(ids, [])));
      for (const ids of chunks(query.keyIds ?? [])) found.push(...(await fetch([], ids)));
      return found;
    },
    async disable(apiKeyId) {
      await call(
        (req: { api_key_id: string }, m, o, cb) => client.DisableWebhook(req, m, o, cb),
        { api_key_id: apiKeyId },
        outgoingMetadata(undefined, token),
        DEADLINE_MS,
      );
    },
    watch() {
      return client.WatchKeys(outgoingMetadata(undefined, token));
    },
    close() {
      client.close();
    },
  };
}
