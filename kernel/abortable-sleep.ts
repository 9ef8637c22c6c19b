// A pause a stop can cut short: resolves after `ms`, or at once when `signal` aborts (never rejects). The
// waits of engines for partition leases (engine/store/lease-keeper.ts, engine/store/standby.ts) use it.

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
