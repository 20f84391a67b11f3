const POLL_MS = 25;

/**
 * Retries `attempt` until it returns true, at most until the deadline, for states that no event announces; returns
 * how long it took. A failing attempt counts as false.
 */
export async function eventually(attempt: () => Promise<boolean>, deadlineMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    if (await attempt().catch(() => false)) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`${what} did not happen within ${deadlineMs} ms`);
}
