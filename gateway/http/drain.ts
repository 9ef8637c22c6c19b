// The gateway's graceful stop (docs/runbook.md, "Roll the gateways"). On SIGTERM the gateway first drains: its
// /readyz answers 503 at once, so a load balancer that polls it (or a Kubernetes Service, which drops a
// terminating pod) routes new requests elsewhere, while the gateway keeps serving for GATEWAY_DRAIN_DELAY_MS and
// answers every request with `Connection: close`: a keep-alive client learns from the answer itself that the
// connection ends, instead of sending its next request on a connection the gateway is closing (ECONNRESET: the
// request may have run). Only then are the listeners closed and the requests in flight drained.
import type http from "node:http";
import type { RequestListener } from "node:http";

/** The drain phase of one gateway process: off until `begin`, then on for good. */
export class DrainPhase {
  private on = false;

  /** Whether the gateway is draining (its /readyz answers 503). */
  get draining(): boolean {
    return this.on;
  }

  /** Starts draining and resolves `delayMs` later, when the listeners may close. */
  async begin(delayMs: number): Promise<void> {
    this.on = true;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  }

  /** Readiness that is false while draining, else what `ready` says. */
  ready(ready: () => Promise<boolean>): () => Promise<boolean> {
    return () => (this.on ? Promise.resolve(false) : ready());
  }

  /** `listener`, with `Connection: close` on every answer given while draining. */
  closing(listener: RequestListener): RequestListener {
    return (req, res) => {
      if (this.on) res.setHeader("connection", "close");
      listener(req, res);
    };
  }
}

/**
 * Closes `server`: no new connections, idle keep-alive connections closed, the requests in flight answered; any
 * connection still open after `graceMs` is cut.
 */
export async function drain(server: http.Server, graceMs: number): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
    }, graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
