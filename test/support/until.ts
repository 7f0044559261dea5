/** Waiting helpers shared by the tests that drive real processes. */

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `read` every `stepMs` (default 20 ms) until it returns something truthy, and resolves
 * with it.
 * @throws Error naming `what` after `timeoutMs` (default 30 s: what a test waits for comes
 *   within a second or two on an idle machine, and much later on CI's 2 cores shared with
 *   other runs; only a failing test waits that long).
 */
export async function until<T>(
  what: string,
  read: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
  stepMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(stepMs);
  }
}
