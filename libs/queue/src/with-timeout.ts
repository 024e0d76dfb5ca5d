/** What {@link withTimeout} rejects with: the awaited call did not settle in time. */
export class CallTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'CallTimeout';
  }
}

/** `p`, or a {@link CallTimeout} rejection once `ms` pass first (`p` itself is not stopped). */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallTimeout(ms)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
