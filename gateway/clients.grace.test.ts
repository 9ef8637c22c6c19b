// The gateway's deadline for a key create is its usual one plus COMMIT_GRACE_MS: the wallet decides the create
// by the deadline less that grace, so the answer of a committed create (the only place its secret is shown)
// still arrives (docs/decisions.md, "Key creation under load"). Other wallet calls keep the usual deadline.
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMIT_GRACE_MS } from "../kernel/call-deadline.js";
import { bindServer } from "../kernel/grpc.js";
import { walletServiceDefinition } from "../kernel/wallet-codec.js";
import { createClients, type Clients } from "./clients.js";

const DEADLINE_MS = 1_500;

describe("the wallet client's deadlines", () => {
  const budgets = new Map<string, number>();
  const server = new grpc.Server();
  let clients: Clients;

  beforeAll(async () => {
    const definition = walletServiceDefinition();
    const record =
      (name: string) => (call: grpc.ServerUnaryCall<unknown, unknown>, done: grpc.sendUnaryData<unknown>) => {
        const deadline = call.getDeadline();
        budgets.set(name, (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now());
        done({ code: grpc.status.FAILED_PRECONDITION, details: "recorded" });
      };
    server.addService(definition, Object.fromEntries(Object.keys(definition).map((name) => [name, record(name)])));
    const port = await bindServer(server, "127.0.0.1", 0);
    clients = createClients(`127.0.0.1:${port}`, [`127.0.0.1:${port}`], undefined, undefined, false, DEADLINE_MS);
  });
  afterAll(() => {
    clients.close();
    server.forceShutdown();
  });

  it("gives CreateApiKey the grace on top of GRPC_DEADLINE_MS, and ListApiKeys none", async () => {
    const origin = { requestId: "r-1", trace: undefined };
    await expect(clients.wallet.createApiKey({ user_id: "u", label: "l", permissions: [] }, origin)).rejects.toThrow();
    await expect(clients.wallet.listApiKeys("u", origin)).rejects.toThrow();
    const create = budgets.get("CreateApiKey") ?? Number.NaN;
    const list = budgets.get("ListApiKeys") ?? Number.NaN;
    expect(create).toBeGreaterThan(DEADLINE_MS);
    expect(create).toBeLessThanOrEqual(DEADLINE_MS + COMMIT_GRACE_MS);
    expect(list).toBeLessThanOrEqual(DEADLINE_MS);
  });
});
