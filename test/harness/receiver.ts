// A real HTTPS webhook receiver on loopback for the tests: its own CA (made with openssl, so the dispatcher
// must be given it through WEBHOOK_CA_FILE), a server certificate for localhost / 127.0.0.1 / ::1, and
// per-path behaviour (answer codes in order, delays, Retry-After). Every delivery is verified with the
// `standardwebhooks` package and kept with its headers.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";

export interface TestCa {
  /** PEM of the CA certificate (what WEBHOOK_CA_FILE points at). */
  caPem: string;
  caFile: string;
  key: string;
  cert: string;
  remove(): void;
}

/** A throwaway CA and a server certificate it signed (SAN localhost, 127.0.0.1, ::1). Needs the openssl CLI. */
export function makeTestCa(): TestCa {
  const dir = mkdtempSync(path.join(tmpdir(), "fts-ca-"));
  const file = (name: string): string => path.join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync("openssl", args, { stdio: "pipe" });
  };
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=fts test CA",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.pem"),
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
  openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    "/CN=localhost",
    "-keyout",
    file("server.key"),
    "-out",
    file("server.csr"),
  );
  writeFileSync(
    file("ext.cnf"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  openssl(
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-out",
    file("server.pem"),
    "-extfile",
    file("ext.cnf"),
  );
  return {
    caPem: readFileSync(file("ca.pem"), "utf8"),
    caFile: file("ca.pem"),
    key: readFileSync(file("server.key"), "utf8"),
    cert: readFileSync(file("server.pem"), "utf8"),
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The parsed envelope (only when the signature verified). */
  envelope: Envelope | undefined;
  verified: boolean;
  /** Status this receiver answered. */
  answered: number;
  at: number;
}

export interface Envelope {
  id: string;
  type: string;
  created_at: string;
  account_id: string;
  api_key_id: string;
  sequence: number;
  data: Record<string, unknown>;
}

export interface PathBehaviour {
  /** Answers in order; the last one repeats. Default [200]. */
  statuses?: number[];
  /** Milliseconds to wait before answering. */
  delayMs?: number;
  /** A Retry-After header value sent with 429/503. */
  retryAfter?: string;
}

export interface Receiver {
  /** https://127.0.0.1:<port> */
  origin: string;
  port: number;
  received: Received[];
  /** Secrets by path: a delivery to the path is verified with it. */
  secrets: Map<string, string>;
  behave(path: string, behaviour: PathBehaviour): void;
  /** Deliveries to a path (verified or not), in arrival order. */
  on(path: string): Received[];
  /** Resolves when `predicate` holds over the received list (polls every 25 ms); rejects after `timeoutMs`. */
  until(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(ca: TestCa): Promise<Receiver> {
  const received: Received[] = [];
  const behaviours = new Map<string, PathBehaviour>();
  const counts = new Map<string, number>();
  const secrets = new Map<string, string>();
  const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const urlPath = (req.url ?? "/").split("?")[0] ?? "/";
      const body = Buffer.concat(chunks).toString("utf8");
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers[name] = value;
      }
      let envelope: Envelope | undefined;
      let verified = false;
      const secret = secrets.get(urlPath);
      if (secret !== undefined) {
        try {
          envelope = new Webhook(secret).verify(body, headers) as Envelope;
          verified = true;
        } catch {
          verified = false;
        }
      }
      const behaviour = behaviours.get(urlPath) ?? {};
      const n = counts.get(urlPath) ?? 0;
      counts.set(urlPath, n + 1);
      const statuses = behaviour.statuses ?? [200];
      const status = statuses[Math.min(n, statuses.length - 1)] ?? 200;
      const answer = (): void => {
        received.push({ path: urlPath, headers, body, envelope, verified, answered: status, at: Date.now() });
        const extra: Record<string, string> =
          behaviour.retryAfter !== undefined && (status === 429 || status === 503)
            ? { "retry-after": behaviour.retryAfter }
            : {};
        res.writeHead(status, { "content-type": "text/plain", ...extra }).end("ok");
      };
      if (behaviour.delayMs !== undefined) setTimeout(answer, behaviour.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    received,
    secrets,
    behave(urlPath, behaviour) {
      behaviours.set(urlPath, behaviour);
    },
    on(urlPath) {
      return received.filter((r) => r.path === urlPath);
    },
    async until(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) {
          throw new Error(`receiver: condition not met within ${timeoutMs} ms; got ${received.length} deliveries`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
