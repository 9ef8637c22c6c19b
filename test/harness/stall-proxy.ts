// A loopback TCP proxy in front of a database (on a host and port, or on a Unix socket: the embedded one) that can be told to stop answering: while stalled it forwards
// nothing in either direction but keeps every socket open (bytes are held, new connections are accepted and
// not connected onwards), as a database that hangs or a network that drops packets would. Resumed, it forwards
// what it held on the connections still open and connects the new ones; a connection its client closed
// meanwhile is closed onwards without its held bytes.
import net from "node:net";
import path from "node:path";

export interface StallProxy {
  /** `targetUrl` with its host and port (or socket folder) replaced by the proxy's. */
  url: string;
  port: number;
  /** Stops forwarding (idempotent). */
  stall(): void;
  /** Forwards again, held bytes first (idempotent). */
  resume(): void;
  /** Connections open now (client side). */
  connections(): number;
  /** Closes every connection and the listener. */
  stop(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
  /** Client bytes not forwarded yet (stalled, or the upstream not connected yet). */
  toUpstream: Buffer[];
  /** Database bytes held while stalled. */
  toClient: Buffer[];
  /** The database closed its side while stalled: the client is closed once the held bytes went out. */
  upstreamEnded: boolean;
  closed: boolean;
}

export async function startStallProxy(targetUrl: string): Promise<StallProxy> {
  const target = new URL(targetUrl);
  const targetHost = target.hostname;
  const targetPort = Number(target.port === "" ? "5432" : target.port);
  /** pg reads `?host=<folder>` as the folder of the socket `.s.PGSQL.<port>`. */
  const socketFolder = target.searchParams.get("host");
  const upstreamAddress =
    socketFolder === null
      ? { host: targetHost, port: targetPort }
      : { path: path.join(socketFolder, `.s.PGSQL.${targetPort}`) };
  const pairs = new Set<Pair>();
  let stalled = false;

  const close = (pair: Pair): void => {
    if (pair.closed) return;
    pair.closed = true;
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream?.destroy();
  };

  const flush = (pair: Pair): void => {
    if (pair.closed || stalled) return;
    const upstream = pair.upstream;
    if (upstream === undefined) {
      connect(pair);
      return;
    }
    if (upstream.readyState === "open") for (const chunk of pair.toUpstream.splice(0)) upstream.write(chunk);
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
    if (pair.upstreamEnded) pair.client.end();
  };

  const connect = (pair: Pair): void => {
    const upstream = net.connect(upstreamAddress);
    pair.upstream = upstream;
    upstream.on("connect", () => {
      flush(pair);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (stalled) pair.toClient.push(chunk);
      else pair.client.write(chunk);
    });
    upstream.on("error", () => {
      close(pair);
    });
    upstream.on("close", () => {
      if (stalled) pair.upstreamEnded = true;
      else close(pair);
    });
  };

  const server = net.createServer((client) => {
    const pair: Pair = {
      client,
      upstream: undefined,
      toUpstream: [],
      toClient: [],
      upstreamEnded: false,
      closed: false,
    };
    pairs.add(pair);
    client.on("data", (chunk: Buffer) => {
      const upstream = pair.upstream;
      if (stalled || upstream === undefined || upstream.readyState !== "open") pair.toUpstream.push(chunk);
      else upstream.write(chunk);
    });
    client.on("error", () => {
      close(pair);
    });
    client.on("close", () => {
      close(pair);
    });
    if (!stalled) connect(pair);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("stall proxy has no port");
  const url = new URL(targetUrl);
  url.searchParams.delete("host");
  url.hostname = "127.0.0.1";
  url.port = String(address.port);

  return {
    url: url.toString(),
    port: address.port,
    stall() {
      stalled = true;
    },
    resume() {
      if (!stalled) return;
      stalled = false;
      for (const pair of [...pairs]) flush(pair);
    },
    connections: () => pairs.size,
    async stop() {
      for (const pair of [...pairs]) close(pair);
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
