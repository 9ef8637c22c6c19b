// An HTTP handler (an Express app) served on a random loopback port, for tests that drive one part of a process.
import http from "node:http";

export interface Served {
  server: http.Server;
  /** `http://127.0.0.1:<port>`. */
  base: string;
}

export async function serveLocal(handler: http.RequestListener): Promise<Served> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the test server has no port");
  return { server, base: `http://127.0.0.1:${address.port}` };
}
