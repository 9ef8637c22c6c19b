import http from "node:http";
import express from "express";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../kernel/log.js";
import { notFound } from "./errors.js";
import { createHttpMetrics, observe } from "./metrics.js";

const log = createLogger("gateway", "silent");
const servers: http.Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(app: express.Express): Promise<string> {
  const server = http.createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return `http://127.0.0.1:${address.port}`;
}

function appWith(registry: Registry | undefined): express.Express {
  const app = express();
  app.use(observe("v1", registry === undefined ? undefined : createHttpMetrics(registry), log));
  const router = express.Router();
  router.get("/account/:account_id", (_req, res) => res.json({ ok: true }));
  app.use("/v1", router);
  app.use(notFound());
  return app;
}

describe("HTTP metrics", () => {
  it("label requests by route template and status, never by the raw path", async () => {
    const registry = new Registry();
    const base = await serve(appWith(registry));
    const id = "3f2b8c1e-6f0a-4c1e-9d2b-7a8e5c4b3a21";
    expect((await fetch(`${base}/v1/account/${id}`)).status).toBe(200);
    expect((await fetch(`${base}/v1/account/${id.replace("3f", "4f")}`)).status).toBe(200);
    expect((await fetch(`${base}/v1/nothing/${id}`)).status).toBe(404);
    const text = await registry.metrics();
    expect(text).toContain(
      'http_requests_total{listener="v1",method="GET",route="/v1/account/:account_id",status="200"} 2',
    );
    expect(text).toContain('http_requests_total{listener="v1",method="GET",route="unmatched",status="404"} 1');
    expect(text).toContain(
      'http_request_duration_seconds_count{listener="v1",method="GET",route="/v1/account/:account_id",status="200"} 2',
    );
    expect(text).not.toContain(id.slice(2));
  });

  it("record nothing when metrics are off", async () => {
    const base = await serve(appWith(undefined));
    expect((await fetch(`${base}/v1/account/x`)).status).toBe(200);
  });
});
