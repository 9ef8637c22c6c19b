// A market.v1 client for tests: push index/mark prices to the engine (PRICE_FEED=push) and wait until every
// shard has applied them.
import * as grpc from "@grpc/grpc-js";
import { loadMarketProto, outgoingMetadata } from "../../kernel/grpc.js";
import type { MarketDataClient } from "../../proto/gen/market/v1/MarketData.js";
import type { NewsEvent } from "../../proto/gen/market/v1/NewsEvent.js";

export interface Market {
  push(prices: Record<string, number | { mark: number; index: number }>): Promise<void>;
  /** PushPrices with the list as given (repeats and bad values included). */
  pushList(prices: { symbol: string; mark_price: number; index_price: number }[]): Promise<void>;
  setCalendar(events: NewsEvent[]): Promise<void>;
  close(): void;
}

/** `credentials`: TLS for an engine started with GRPC_TLS_CERT_FILE (kernel/grpc.ts channelCredentials). */
export function marketClient(
  target: string,
  internalToken?: string,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
): Market {
  const client: MarketDataClient = new (loadMarketProto().market.v1.MarketData)(target, credentials);
  const metadata = (): grpc.Metadata => outgoingMetadata(undefined, internalToken);
  return {
    push(prices) {
      const updates = Object.entries(prices).map(([symbol, price]) =>
        typeof price === "number"
          ? { symbol, mark_price: price, index_price: price }
          : { symbol, mark_price: price.mark, index_price: price.index },
      );
      return new Promise((resolve, reject) => {
        client.PushPrices({ prices: updates }, metadata(), (error) => {
          if (error) reject(error);
          else resolve();
        });
      });
    },
    pushList(prices) {
      return new Promise((resolve, reject) => {
        client.PushPrices({ prices }, metadata(), (error) => {
          if (error) reject(error);
          else resolve();
        });
      });
    },
    setCalendar(events) {
      return new Promise((resolve, reject) => {
        client.SetCalendar({ events }, metadata(), (error) => {
          if (error) reject(error);
          else resolve();
        });
      });
    },
    close() {
      client.close();
    },
  };
}
