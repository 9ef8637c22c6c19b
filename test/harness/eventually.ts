// Polls a condition until it holds: for what another process or a reconnecting client does in its own time.
// The timeout only ends a test that would otherwise hang; no test asserts how long the wait took.

/** Resolves once `check` answers true (a rejection counts as false); fails after `timeoutMs` naming `what`. */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
