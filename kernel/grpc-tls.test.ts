// Internal gRPC over TLS, with a real handshake: a listener started with GRPC_TLS_CERT_FILE/GRPC_TLS_KEY_FILE
// answers a client that trusts GRPC_TLS_CA_FILE and refuses a plaintext one and one that does not trust the CA;
// the settings are read and checked at start; the wallet binds with them.
import * as grpc from "@grpc/grpc-js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEngineSettings } from "../engine/config.js";
import { loadGatewaySettings } from "../gateway/config.js";
import { makeTestCa, type TestCa } from "../test/harness/receiver.js";
import { loadWalletSettings } from "../wallet/config.js";
import { startWallet } from "../wallet/main.js";
import { ConfigError } from "./config.js";
import { bindServer, channelCredentials, serverCredentials } from "./grpc.js";
import { createLogger } from "./log.js";

const ECHO_PATH = "/test.Echo/Echo";
const identity = (b: Buffer): Buffer => b;
const ECHO: grpc.ServiceDefinition = {
  Echo: {
    path: ECHO_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

let ca: TestCa;
let dir: string;
let files: { cert: string; key: string; ca: string; notAKey: string };

beforeAll(() => {
  ca = makeTestCa();
  dir = mkdtempSync(path.join(tmpdir(), "fts-grpc-tls-"));
  files = {
    cert: path.join(dir, "server.pem"),
    key: path.join(dir, "server.key"),
    ca: ca.caFile,
    notAKey: path.join(dir, "not-a-key.pem"),
  };
  writeFileSync(files.cert, ca.cert);
  writeFileSync(files.key, ca.key);
  writeFileSync(files.notAKey, ca.cert);
});

afterAll(() => {
  ca.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** One echo call; resolves with the answer or the gRPC status code of the failure. */
async function echo(target: string, credentials: grpc.ChannelCredentials): Promise<string | number> {
  const client = new grpc.Client(target, credentials);
  try {
    return await new Promise<string | number>((resolve) => {
      client.makeUnaryRequest(
        ECHO_PATH,
        identity,
        identity,
        Buffer.from("hello"),
        { deadline: Date.now() + 3_000 },
        (error, value) => {
          resolve(error === null ? (value?.toString() ?? "") : (error.code ?? -1));
        },
      );
    });
  } finally {
    client.close();
  }
}

describe("a gRPC listener with GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE", () => {
  const server = new grpc.Server();
  let port = 0;

  beforeAll(async () => {
    const settings = loadWalletSettings({ GRPC_TLS_CERT_FILE: files.cert, GRPC_TLS_KEY_FILE: files.key });
    server.addService(ECHO, {
      Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
        callback(null, call.request);
      },
    });
    port = await bindServer(
      server,
      "127.0.0.1",
      0,
      serverCredentials(settings.GRPC_TLS_CERT_FILE, settings.GRPC_TLS_KEY_FILE),
    );
  });
  afterAll(() => {
    server.forceShutdown();
  });

  it("answers a TLS client that trusts GRPC_TLS_CA_FILE (the certificate names localhost and 127.0.0.1)", async () => {
    const { GRPC_TLS_CA_FILE } = loadGatewaySettings({ GRPC_TLS_CA_FILE: files.ca });
    expect(await echo(`localhost:${port}`, channelCredentials(GRPC_TLS_CA_FILE))).toBe("hello");
    expect(await echo(`127.0.0.1:${port}`, channelCredentials(GRPC_TLS_CA_FILE))).toBe("hello");
  });

  it("refuses a plaintext client", async () => {
    expect(await echo(`127.0.0.1:${port}`, grpc.credentials.createInsecure())).toBe(grpc.status.UNAVAILABLE);
  });

  it("refuses a TLS client that does not trust the CA (system roots only)", async () => {
    expect(await echo(`localhost:${port}`, grpc.credentials.createSsl())).toBe(grpc.status.UNAVAILABLE);
  });
});

describe("the GRPC_TLS_* settings", () => {
  const problems = (load: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv): string[] => {
    try {
      load(env);
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
  };

  it("are read and parsed at start: the files' PEM, never the key in a message", () => {
    const settings = loadEngineSettings({
      GRPC_TLS_CERT_FILE: files.cert,
      GRPC_TLS_KEY_FILE: files.key,
      GRPC_TLS_CA_FILE: files.ca,
    });
    expect(settings.GRPC_TLS_CERT_FILE).toEqual({ file: files.cert, pem: ca.cert });
    expect(settings.GRPC_TLS_CA_FILE?.pem).toBe(ca.caPem);
    const refused = problems(loadEngineSettings, { GRPC_TLS_CERT_FILE: files.cert, GRPC_TLS_KEY_FILE: files.notAKey });
    expect(refused).toEqual([`GRPC_TLS_KEY_FILE: ${files.notAKey} holds no PEM private key that parses`]);
    expect(problems(loadWalletSettings, { GRPC_TLS_CERT_FILE: files.key, GRPC_TLS_KEY_FILE: files.key })).toEqual([
      `GRPC_TLS_CERT_FILE: ${files.key} holds no PEM certificate that parses`,
    ]);
  });

  it("need the certificate and the key together", () => {
    expect(problems(loadWalletSettings, { GRPC_TLS_CERT_FILE: files.cert })).toEqual([
      expect.stringMatching(/^GRPC_TLS_KEY_FILE: required with/),
    ]);
    expect(problems(loadEngineSettings, { GRPC_TLS_KEY_FILE: files.key })).toEqual([
      expect.stringMatching(/^GRPC_TLS_CERT_FILE: required with/),
    ]);
    expect(problems(loadGatewaySettings, { GRPC_TLS_CA_FILE: path.join(dir, "missing.pem") })).toEqual([
      expect.stringMatching(/^GRPC_TLS_CA_FILE: cannot read .*missing\.pem \(ENOENT\)/),
    ]);
  });
});

describe("the wallet started with GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE", () => {
  it("serves TLS only", { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "fts-wallet-tls-"));
    const wallet = await startWallet(
      loadWalletSettings({
        WALLET_GRPC_PORT: "0",
        WALLET_METRICS_PORT: "0",
        LOG_LEVEL: "silent",
        DATA_DIR: dataDir,
        GRPC_TLS_CERT_FILE: files.cert,
        GRPC_TLS_KEY_FILE: files.key,
      }),
      createLogger("wallet", "silent"),
    );
    const ready = async (credentials: grpc.ChannelCredentials): Promise<boolean> => {
      const client = new grpc.Client(`localhost:${wallet.grpcPort}`, credentials);
      try {
        return await new Promise<boolean>((resolve) => {
          client.waitForReady(Date.now() + 2_000, (error) => {
            resolve(error === undefined || error === null);
          });
        });
      } finally {
        client.close();
      }
    };
    try {
      const { GRPC_TLS_CA_FILE } = loadGatewaySettings({ GRPC_TLS_CA_FILE: files.ca });
      expect(await ready(channelCredentials(GRPC_TLS_CA_FILE))).toBe(true);
      expect(await ready(grpc.credentials.createInsecure())).toBe(false);
    } finally {
      await wallet.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
