// The ceiling servers of `npm run bench:engine`, each started as its own child process (so the load
// generator never shares a thread with them). The role is the first argument:
//   http     bare `node:http`: reads the body, answers 201 with a constant JSON body;
//   grpc     a grpc-js server with one unary method answering a constant (raw bytes, no protobuf work);
//   express  Express 5, POST /v1/order: parses the JSON body (express.json, as the gateway does), makes one
//            grpc-js unary call to the `grpc` role (GRPC_TARGET, with the gateway's channel options and
//            deadline) and answers 201 with a constant JSON body: the architecture's own ceiling.
// Each reports `{ type: "ready", port }` over IPC and stops on SIGTERM/SIGINT or when the parent leaves.
import http from "node:http";
import * as grpc from "@grpc/grpc-js";
import express from "express";
import { bindServer, CHANNEL_OPTIONS, shutdownServer } from "../kernel/grpc.js";
import { isEntryPoint } from "../kernel/process.js";
import { rawBytes, rawBytesService, report, serveRole } from "./bench-child.js";

export type ServerRole = "http" | "grpc" | "express";
export type ServerMessage = { type: "ready"; port: number } | { type: "failed"; message: string };

const METHOD_PATH = "/bench.v1.Bench/Constant";
const SERVICE = rawBytesService("Constant", METHOD_PATH);

/** The answer of every role: small constant JSON (the gRPC role sends the same bytes). */
const CONSTANT = { ok: true, order: { status: "NEW" } };
const CONSTANT_TEXT = JSON.stringify(CONSTANT);
const CONSTANT_BYTES = Buffer.from(CONSTANT_TEXT);
/** As the gateway's gRPC clients (gateway/clients.ts). */
const DEADLINE_MS = 10_000;
const HOST = "127.0.0.1";

async function listen(server: http.Server): Promise<number> {
  // As the gateway's listeners.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, () => {
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}

async function runHttp(): Promise<() => Promise<void>> {
  const server = http.createServer((req, res) => {
    req.on("data", () => undefined);
    req.on("end", () => {
      res.writeHead(201, { "content-type": "application/json; charset=utf-8" });
      res.end(CONSTANT_TEXT);
    });
  });
  report({ type: "ready", port: await listen(server) });
  return () => closeServer(server);
}

async function runGrpc(): Promise<() => Promise<void>> {
  const server = new grpc.Server(CHANNEL_OPTIONS);
  const handlers: grpc.UntypedServiceImplementation = {
    Constant: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      callback(null, CONSTANT_BYTES);
    },
  };
  server.addService(SERVICE, handlers);
  report({ type: "ready", port: await bindServer(server, HOST, 0) });
  return () => shutdownServer(server, 2_000);
}

async function runExpress(): Promise<() => Promise<void>> {
  const target = process.env.GRPC_TARGET;
  if (target === undefined || target === "") throw new Error("GRPC_TARGET is required");
  const client = new grpc.Client(target, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.post("/v1/order", express.json({ limit: 65_536 }), (req, res) => {
    const payload = Buffer.from(JSON.stringify(req.body));
    client.makeUnaryRequest<Buffer, Buffer>(
      METHOD_PATH,
      rawBytes,
      rawBytes,
      payload,
      new grpc.Metadata(),
      { deadline: Date.now() + DEADLINE_MS },
      (error) => {
        if (error) res.status(500).json({ error: "engine_error" });
        else res.status(201).json(CONSTANT);
      },
    );
  });
  const server = http.createServer(app);
  report({ type: "ready", port: await listen(server) });
  return async () => {
    await closeServer(server);
    client.close();
  };
}

if (isEntryPoint(import.meta.url)) serveRole({ http: runHttp, grpc: runGrpc, express: runExpress });
