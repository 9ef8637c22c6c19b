import { status } from "@grpc/grpc-js";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { codeName, RpcMetrics } from "./rpc-metrics.js";

describe("RpcMetrics", () => {
  it("labels latency by method and the status code's name", async () => {
    const registry = new Registry();
    const place = new RpcMetrics(registry, "server").method("PlaceOrder");
    place(status.OK, 0.002);
    place(status.OK, 0.004);
    place(status.FAILED_PRECONDITION, 0.001);
    const text = await registry.metrics();
    expect(text).toContain('grpc_server_handling_seconds_count{grpc_method="PlaceOrder",grpc_code="OK"} 2');
    expect(text).toContain(
      'grpc_server_handling_seconds_count{grpc_method="PlaceOrder",grpc_code="FAILED_PRECONDITION"} 1',
    );
  });

  it("names the client side's histogram apart from the server's", async () => {
    const registry = new Registry();
    new RpcMetrics(registry, "client").method("ValidateApiKey")(status.UNAVAILABLE, 0.5);
    expect(await registry.metrics()).toContain(
      'grpc_client_handling_seconds_bucket{le="0.5",grpc_method="ValidateApiKey",grpc_code="UNAVAILABLE"} 1',
    );
  });

  it("names every status code and answers UNKNOWN outside the table", () => {
    expect(codeName(status.OK)).toBe("OK");
    expect(codeName(status.RESOURCE_EXHAUSTED)).toBe("RESOURCE_EXHAUSTED");
    expect(codeName(99)).toBe("UNKNOWN");
  });
});
