/** What {@link withTimeout} rejects with: the awaited call did not settle in time. */
export class CallTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'CallTimeout';
  }
}

/**
 * `p`, or a {@link CallTimeout} rejection once `ms` pass first. `p` itself is not stopped unless the call
 * was given `abort`'s signal: then the timeout aborts it too, with the {@link CallTimeout} as reason.
 */
export function withTimeout<T>(p: Promise<T>, ms: number, abort?: AbortController): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const reason = new CallTimeout(ms);
      abort?.abort(reason);
      reject(reason);
    }, ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
