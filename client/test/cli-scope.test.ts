// A call the key's scopes do not cover: the client's `ApiError` names the scope it needed (`requiredScope`) and
// `ftrade` prints the service's message saying so. The service is a stubbed `fetch` answering every request
// `403 permission_denied` as the gateway does for a cancel with a TRADE-only key.
import { afterEach, describe, expect, it, vi } from "vitest";
import { EXIT, main } from "../src/cli.js";
import { TradingClient } from "../src/client.js";
import { ApiError } from "../src/errors.js";

const ORDER = "0a0a0a0a-0000-4000-8000-000000000001";
const DENIED = {
  error: "permission_denied",
  required_scope: "MANAGE_ORDERS",
  message: "this key lacks the MANAGE_ORDERS scope",
};

afterEach(() => {
  vi.restoreAllMocks();
});

function serviceAnswering(status: number, body: object): void {
  vi.spyOn(globalThis, "fetch").mockImplementation(() =>
    Promise.resolve(new Response(JSON.stringify(body), { status })),
  );
}

describe("a call without the scope it needs", () => {
  it("fails with an ApiError whose requiredScope names the scope", async () => {
    serviceAnswering(403, DENIED);
    const client = new TradingClient({ baseUrl: "http://service.test", apiKey: "k", apiSecret: "s", pacer: false });
    const failure = await client.cancelOrder(ORDER).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect([(failure as ApiError).code, (failure as ApiError).requiredScope]).toEqual([
      "permission_denied",
      "MANAGE_ORDERS",
    ]);
  });

  it("has no requiredScope on another error", async () => {
    serviceAnswering(404, { error: "not_found" });
    const client = new TradingClient({ baseUrl: "http://service.test", apiKey: "k", apiSecret: "s", pacer: false });
    const failure = await client.cancelOrder(ORDER).catch((error: unknown) => error);
    expect((failure as ApiError).requiredScope).toBeNull();
  });

  it("makes ftrade print what the key lacks and exit 1", async () => {
    serviceAnswering(403, DENIED);
    const stderr: string[] = [];
    const code = await main(["order", "cancel", ORDER], {
      env: {
        FTRADE_URL: "http://service.test",
        FTRADE_API_KEY: "svc_ak_scope",
        FTRADE_API_SECRET: "svc_sk_scope",
        FTRADE_PROFILE_FILE: "/nonexistent/ftrade-profiles.json",
      },
      stdout: { write: () => true },
      stderr: { write: (text: string) => stderr.push(text) },
    });
    expect(code).toBe(EXIT.error);
    expect(stderr.join("")).toBe("error: 403 permission_denied\n  this key lacks the MANAGE_ORDERS scope\n");
  });
});
