/**
 * `p`, or `onAbort()`'s error as soon as `signal` aborts (`p` itself is not stopped unless it heeds the same
 * signal); `p`'s own later rejection is then not heard.
 */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  p.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(onAbort());
    if (signal.aborted) return aborted();
    signal.addEventListener('abort', aborted, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}
