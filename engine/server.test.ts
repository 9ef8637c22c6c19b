import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { CHANNEL_OPTIONS, call, loadEngineProto, outgoingMetadata } from "../kernel/grpc.js";
import type { EngineClient } from "../proto/gen/engine/v1/Engine.js";
import type { Calendar__Output } from "../proto/gen/engine/v1/Calendar.js";
import type { GetCalendarRequest } from "../proto/gen/engine/v1/GetCalendarRequest.js";
import type { ListPlansRequest } from "../proto/gen/engine/v1/ListPlansRequest.js";
import type { ListPlansResponse__Output } from "../proto/gen/engine/v1/ListPlansResponse.js";
import type { ListTickersRequest } from "../proto/gen/engine/v1/ListTickersRequest.js";
import type { ListTickersResponse__Output } from "../proto/gen/engine/v1/ListTickersResponse.js";
import type { OrderResponse__Output } from "../proto/gen/engine/v1/OrderResponse.js";
import type { PlaceOrderRequest } from "../proto/gen/engine/v1/PlaceOrderRequest.js";
import { PLANS } from "./basics/plans.js";
import type { RunningEngine } from "./main.js";
import { TestEngine, restingBuy } from "./main.testing.js";
import { CATALOGUE } from "./market/catalogue.js";
import { marketClient } from "../test/harness/market.js";
import { createClients, type Clients } from "../gateway/clients.js";
import { untraced } from "../gateway/origin.js";
import { ServiceError, fromGrpcError } from "../kernel/errors.js";

const TOKEN = "engine-test-internal-token";
/** A Saturday: only crypto trades. */
const SATURDAY_NOON = Date.parse("2026-11-28T12:00:00.000Z");

const testEngine = new TestEngine("engine-server", TOKEN, { PRICE_FEED: "push" });
let engine: RunningEngine;
let client: EngineClient;

function listTickers(metadata: grpc.Metadata): Promise<ListTickersResponse__Output> {
  return call<ListTickersRequest, ListTickersResponse__Output>(client.ListTickers.bind(client), {}, metadata);
}

function listPlans(metadata: grpc.Metadata): Promise<ListPlansResponse__Output> {
  return call<ListPlansRequest, ListPlansResponse__Output>(client.ListPlans.bind(client), {}, metadata);
}

const authorized = (): grpc.Metadata => outgoingMetadata("req-1", TOKEN);

beforeAll(async () => {
  engine = await testEngine.start({ now: () => SATURDAY_NOON });
  // Reference prices, except one symbol that has not been priced yet (as under PRICE_FEED=push).
  const market = marketClient(`127.0.0.1:${engine.grpcPort}`, TOKEN);
  await market.push(
    Object.fromEntries(
      CATALOGUE.rows.filter((t) => t.symbol !== "ADA-USD").map((t) => [t.symbol, Number(t.reference_price)]),
    ),
  );
  market.close();
  const proto = loadEngineProto();
  client = new proto.engine.v1.Engine(
    `127.0.0.1:${engine.grpcPort}`,
    grpc.credentials.createInsecure(),
    CHANNEL_OPTIONS,
  );
});

afterAll(async () => {
  client.close();
  await testEngine.stop();
});

describe("engine.v1.Engine/ListTickers", () => {
  it("returns every catalogue symbol in catalogue order", async () => {
    const response = await listTickers(authorized());
    expect(response.data.map((t) => t.symbol)).toEqual(CATALOGUE.rows.map((t) => t.symbol));
  });

  it("sends sizes and prices as numbers with mark and index at the reference price", async () => {
    const response = await listTickers(authorized());
    const btc = response.data.find((t) => t.symbol === "BTC-USD");
    expect(btc).toEqual({
      symbol: "BTC-USD",
      base: "BTC",
      quote: "USD",
      asset_class: "crypto",
      venues: ["GMX", "OSTIUM"],
      max_leverage: 100,
      tick_size: 0.1,
      quantity_step: 0.0001,
      min_quantity: 0.0001,
      mark_price: 96412.3,
      index_price: 96412.3,
      market_open: true,
      _mark_price: "mark_price",
      _index_price: "index_price",
    });
  });

  it("leaves mark and index out for a symbol without a price", async () => {
    const response = await listTickers(authorized());
    const ada = response.data.find((t) => t.symbol === "ADA-USD");
    expect(ada).toBeDefined();
    expect(ada?.mark_price).toBeUndefined();
    expect(ada?.index_price).toBeUndefined();
  });

  it("reports market hours at the engine's clock: on a Saturday only crypto is open", async () => {
    const response = await listTickers(authorized());
    for (const ticker of response.data) expect(ticker.market_open, ticker.symbol).toBe(ticker.asset_class === "crypto");
  });
});

describe("engine.v1.Engine/ListPlans", () => {
  it("returns the plan catalogue with every field", async () => {
    const response = await listPlans(authorized());
    expect(response.data).toEqual(PLANS.rows.map((plan) => ({ ...plan })));
  });
});

describe("the internal token", () => {
  it.each<[string, () => grpc.Metadata]>([
    ["no authorization metadata", () => new grpc.Metadata()],
    ["a wrong token", () => outgoingMetadata(undefined, "not-the-engine-token")],
    [
      "the token without the Bearer prefix",
      () => {
        const metadata = new grpc.Metadata();
        metadata.set("authorization", TOKEN);
        return metadata;
      },
    ],
  ])("rejects a call with %s as UNAUTHENTICATED", async (_label, metadata) => {
    await expect(listTickers(metadata())).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    await expect(listPlans(metadata())).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });
});

/** The first message of a server stream, or its error; the stream is cancelled either way. */
function firstOf<T>(stream: grpc.ClientReadableStream<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    stream.on("data", (message: T) => {
      resolve(message);
      stream.cancel();
    });
    stream.on("error", (error: grpc.ServiceError) => {
      if (error.code !== grpc.status.CANCELLED) reject(error);
    });
  });
}

describe("engine.v1's streaming calls", () => {
  it.each<[string, (metadata: grpc.Metadata) => grpc.ClientReadableStream<unknown>]>([
    ["WatchTickers", (metadata) => client.WatchTickers({ symbols: [] }, metadata)],
    ["WatchCatalogue", (metadata) => client.WatchCatalogue({}, metadata)],
    [
      "WatchAccount",
      (metadata) =>
        client.WatchAccount(
          { user_id: "8f0c2b1e-7a52-4d8e-9a41-0d6d2c3f4b5a", account_id: "5b1f3c7e-2d4a-4f6b-8c9d-1e2f3a4b5c6d" },
          metadata,
        ),
    ],
  ])("%s without the internal token ends UNAUTHENTICATED", async (_method, open) => {
    await expect(firstOf(open(outgoingMetadata(undefined, "not-the-engine-token")))).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
  });

  it("WatchTickers sends each wanted ticker first and refuses an unknown symbol as INVALID_ARGUMENT", async () => {
    const ticker = await firstOf(client.WatchTickers({ symbols: ["btc-usd"] }, authorized()));
    expect(ticker).toMatchObject({ symbol: "BTC-USD", mark_price: 96412.3 });
    await expect(firstOf(client.WatchTickers({ symbols: ["BTC-USD", "NOPE"] }, authorized()))).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
  });
});

/** Reads a server stream's replies one at a time; cancelled when the test ends. */
function repliesOf<T>(stream: grpc.ClientReadableStream<T>): () => Promise<T> {
  const queued: T[] = [];
  const waiting: ((reply: T) => void)[] = [];
  stream.on("data", (reply: T) => {
    const next = waiting.shift();
    if (next === undefined) queued.push(reply);
    else next(reply);
  });
  stream.on("error", () => undefined);
  onTestFinished(() => {
    stream.cancel();
  });
  return () => {
    const reply = queued.shift();
    return reply === undefined ? new Promise<T>((resolve) => waiting.push(resolve)) : Promise.resolve(reply);
  };
}

describe("engine.v1.Engine/WatchCatalogue", () => {
  it("sends the catalogue reads whole first, then each price change and calendar, and heartbeats", async () => {
    const next = repliesOf(client.WatchCatalogue({}, authorized()));
    const whole = await next();
    const getCalendar = (): Promise<Calendar__Output> =>
      call<GetCalendarRequest, Calendar__Output>(
        client.GetCalendar.bind(client),
        { from: "", to: "", symbol: "" },
        authorized(),
      );
    const calendar = await getCalendar();
    expect(whole).toEqual({
      whole: true,
      tickers: (await listTickers(authorized())).data,
      plans: (await listPlans(authorized())).data,
      calendar,
    });

    const market = marketClient(`127.0.0.1:${engine.grpcPort}`, TOKEN);
    onTestFinished(() => {
      market.close();
    });
    await market.push({ "ETH-USD": 3_100 });
    const ticker = (await listTickers(authorized())).data.find((t) => t.symbol === "ETH-USD");
    expect(await next()).toEqual({ whole: false, tickers: [ticker], plans: [], calendar: null });

    const events = [
      { id: "x", title: "CPI", scheduled_at: "2027-01-13T13:30:00Z", symbols: [], asset_classes: ["forex"] },
    ];
    await market.setCalendar(events);
    const replaced = await getCalendar();
    expect(await next()).toEqual({ whole: false, tickers: [], plans: [], calendar: replaced });
    expect(replaced.events.map((e) => e.id)).toEqual(["x"]);
    // Nothing changes from here: the next reply is a heartbeat.
    expect(await next()).toEqual({ whole: false, tickers: [], plans: [], calendar: null });
  });
});

describe("the admin listener", () => {
  it("answers /healthz with ok", async () => {
    const response = await fetch(`http://127.0.0.1:${engine.adminPort}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("answers /readyz with ready", async () => {
    const response = await fetch(`http://127.0.0.1:${engine.adminPort}/readyz`);
    expect(response.status).toBe(200);
  });

  it("serves Prometheus metrics labelled with the engine service", async () => {
    const response = await fetch(`http://127.0.0.1:${engine.adminPort}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(await response.text()).toContain('service="engine"');
  });
});

describe("engine.v1 order lookups", () => {
  const clients = (): Clients => createClients("127.0.0.1:9", [`127.0.0.1:${engine.grpcPort}`], TOKEN);
  const errorOf = (promise: Promise<unknown>): Promise<ServiceError> =>
    promise.then(
      () => {
        throw new Error("expected a refusal");
      },
      (error: unknown) => fromGrpcError(error),
    );

  it("finds an order by id, by client_id and in the history; refuses other users, bad ids and bad client_ids", async () => {
    const opened = clients();
    onTestFinished(() => {
      opened.close();
    });
    const calls = opened.engine;
    const user = "user-lookups";
    const account = await calls.createAccount(
      { user_id: user, plan_id: "48a184ce-7d26-4b3f-82e3-cbf4f08383ba" },
      untraced("req-open"),
    );
    const ref = { user_id: user, account_id: account.account_id };
    const placed = await calls.placeOrder(
      { ...restingBuy(user, account.account_id), client_id: "svc-1" },
      untraced("p"),
    );
    const orderId = placed.order?.order_id ?? "";
    expect((await calls.getOrder({ user_id: user, order_id: orderId.toUpperCase() }, untraced("g"))).order).toEqual(
      placed.order,
    );
    expect((await calls.findOrderByClientId({ ...ref, client_id: "svc-1" }, untraced("c"))).data).toEqual([
      placed.order,
    ]);
    expect((await calls.findOrderByClientId({ ...ref, client_id: "svc-2" }, untraced("c"))).data).toEqual([]);
    const history = await calls.listOrderHistory({ ...ref, from: "", to: "", limit: 0, after_id: "" }, untraced("h"));
    expect(history).toEqual({ data: [placed.order], has_more: false });

    for (const request of [
      { user_id: "someone-else", order_id: orderId },
      { user_id: user, order_id: "not-a-uuid" },
      { user_id: user, order_id: "00000000-0000-4000-8000-000000000000" },
    ]) {
      expect((await errorOf(calls.getOrder(request, untraced("g")))).code).toBe("not_found");
    }
    const other = { user_id: "someone-else", account_id: account.account_id };
    expect((await errorOf(calls.findOrderByClientId({ ...other, client_id: "svc-1" }, untraced("c")))).code).toBe(
      "not_found",
    );
    expect(
      (await errorOf(calls.listOrderHistory({ ...other, from: "", to: "", limit: 0, after_id: "" }, untraced("h"))))
        .code,
    ).toBe("not_found");
    for (const clientId of ["", "x".repeat(65), "new\nline"]) {
      const refused = await errorOf(calls.findOrderByClientId({ ...ref, client_id: clientId }, untraced("c")));
      expect(refused.code, JSON.stringify(clientId)).toBe("invalid_payload");
      expect(refused.fields).toEqual({
        issues: [{ path: "client_id", message: "must be 1 to 64 printable ASCII characters" }],
      });
    }
    const badRange = await errorOf(
      calls.listOrderHistory({ ...ref, from: "", to: "", limit: 0, after_id: orderId }, untraced("h")),
    );
    expect(badRange.code).toBe("invalid_payload");
  });
});

describe("engine.v1.Engine/PlaceOrder with a request_id", () => {
  it("replays the first answer to the same request_id over the wire and shows it as no client_id", async () => {
    const opened = createClients("127.0.0.1:9", [`127.0.0.1:${engine.grpcPort}`], TOKEN);
    onTestFinished(() => {
      opened.close();
    });
    const user = "user-request-ids";
    const account = await opened.engine.createAccount(
      { user_id: user, plan_id: "48a184ce-7d26-4b3f-82e3-cbf4f08383ba" },
      untraced("req-open"),
    );
    const place = (request: PlaceOrderRequest): Promise<OrderResponse__Output> =>
      call<PlaceOrderRequest, OrderResponse__Output>(client.PlaceOrder.bind(client), request, authorized());
    const request = { ...restingBuy(user, account.account_id), request_id: "wire-request-1" };
    const first = await place(request);
    expect(first.outcome).toBe("created");
    expect(first.order?.client_id).not.toBe("wire-request-1");
    const again = await place(request);
    expect(again).toEqual({ ...first, outcome: "replayed" });
    const ref = { user_id: user, account_id: account.account_id };
    expect(
      (await opened.engine.findOrderByClientId({ ...ref, client_id: "wire-request-1" }, untraced("c"))).data,
    ).toEqual([]);
    const refused = await place({ ...request, quantity: "0.02" }).catch((error: unknown) => fromGrpcError(error));
    expect(refused).toMatchObject({ code: "conflict" });
    expect((refused as ServiceError).body()).toEqual({
      error: "conflict",
      reason: "request_id_reused",
      order_id: first.order?.order_id,
    });
  });
});

describe("the gateway's engine client: session stream and unary calls", () => {
  const clientsOf = (engineSession: boolean): Clients =>
    createClients("127.0.0.1:9", [`127.0.0.1:${engine.grpcPort}`], TOKEN, undefined, engineSession);

  it("give the same answers and the same errors", async () => {
    const session = clientsOf(true);
    const plain = clientsOf(false);
    try {
      const run = async (clients: Clients) => {
        const account = await clients.engine.createAccount(
          { user_id: "user-session", plan_id: "48a184ce-7d26-4b3f-82e3-cbf4f08383ba" },
          untraced("req-create"),
        );
        const order = await clients.engine.placeOrder(
          restingBuy("user-session", account.account_id),
          untraced("req-place"),
        );
        const orders = await clients.engine.listOrders(
          { user_id: "user-session", account_id: account.account_id },
          untraced("req-list"),
        );
        const missing = await clients.engine
          .getSummary({ user_id: "someone-else", account_id: account.account_id }, untraced("req-404"))
          .catch((error: unknown) => fromGrpcError(error));
        const cancelOther = await clients.engine
          .cancelOrder({ user_id: "someone-else", order_id: order.order?.order_id ?? "" }, untraced("req-cancel"))
          .catch((error: unknown) => fromGrpcError(error));
        return { account, order, orders, missing, cancelOther };
      };
      const [viaSession, viaUnary] = await Promise.all([run(session), run(plain)]);
      for (const result of [viaSession, viaUnary]) {
        expect(result.order.outcome).toBe("created");
        expect(result.order.order?.status).toBe("NEW");
        expect(result.orders.data.map((o) => o.order_id)).toEqual([result.order.order?.order_id]);
        expect(result.missing).toBeInstanceOf(ServiceError);
        expect((result.missing as ServiceError).code).toBe("not_found");
        expect((result.cancelOther as ServiceError).code).toBe("not_found");
      }
      // Same shapes field for field, apart from the ids and times each account got.
      const scrub = (value: unknown): unknown =>
        JSON.parse(
          JSON.stringify(value)
            .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
            .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>"),
        );
      expect(scrub(viaSession)).toEqual(scrub(viaUnary));
    } finally {
      session.close();
      plain.close();
    }
  });

  it("a session opened with the wrong internal token fails its calls as a unary call would", async () => {
    const wrong = createClients("127.0.0.1:9", [`127.0.0.1:${engine.grpcPort}`], "not-the-token", undefined, true);
    try {
      const error = await wrong.engine.listPlans(untraced("req-plans")).catch((e: unknown) => e);
      expect((error as grpc.ServiceError).code).toBe(grpc.status.UNAUTHENTICATED);
    } finally {
      wrong.close();
    }
  });
});
