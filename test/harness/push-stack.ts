// A stack whose prices and news calendar come from the test (PRICE_FEED=push), with what the catalogue tests
// use beside it: the /v1 base, a READ_ONLY key, a market.v1 client to push, and an engine.v1 client to compare
// the gateway's answers with the engine's own.
import * as grpc from "@grpc/grpc-js";
import { loadEngineProto } from "../../kernel/grpc.js";
import type { EngineClient } from "../../proto/gen/engine/v1/Engine.js";
import { stackOn, type Backend, type TestStack } from "./backends.js";
import { newKey, type CreatedKey } from "./client.js";
import { marketClient, type Market } from "./market.js";

export interface PushStack {
  stack: TestStack;
  base: string;
  key: CreatedKey;
  market: Market;
  engine: EngineClient;
  /** Closes both clients, then stops the stack. */
  stop(): Promise<void>;
}

export async function pushStack(backend: Backend, userId: string): Promise<PushStack> {
  const stack = await stackOn(backend, { env: { PRICE_FEED: "push" } });
  const gateway = stack.gateways[0];
  if (gateway === undefined) {
    await stack.stop();
    throw new Error("no gateway");
  }
  const key = await newKey(gateway.api, userId, { label: "reader", permissions: ["READ_ONLY"] });
  const market = marketClient(stack.engineGrpc);
  const engine = new (loadEngineProto().engine.v1.Engine)(stack.engineGrpc, grpc.credentials.createInsecure());
  return {
    stack,
    base: gateway.v1,
    key,
    market,
    engine,
    async stop() {
      engine.close();
      market.close();
      await stack.stop();
    },
  };
}
