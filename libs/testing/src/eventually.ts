/** How {@link eventually} polls. */
export interface PollOptions {
  /** Give up after this long (default 60 s). */
  ms?: number;
  /** Pause between attempts (default 150 ms). */
  pollMs?: number;
  /** A throwing check counts as "not yet" (suites that stop a server on purpose); else the error fails the wait. */
  retryErrors?: boolean;
}

type Check<T> = () => Promise<T | null | undefined | false> | T | null | undefined | false;

/**
 * Polls `check` until it yields a truthy value, which is returned; throws once the time is up. The
 * e2e suites wait for asynchronous outcomes (indexing, commits, recovery after a fault) with this.
 */
export async function eventually<T>(check: Check<T>, opts: number | PollOptions = {}): Promise<T> {
  const { ms = 60_000, pollMs = 150, retryErrors = false } = typeof opts === 'number' ? { ms: opts } : opts;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const attempt = Promise.resolve().then(check);
    const v = await (retryErrors ? attempt.catch(() => null) : attempt);
    if (v) return v;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error('condition not met in time');
}
