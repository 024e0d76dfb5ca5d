import { Embedder } from './embedder.port';

interface Pending {
  texts: string[];
  resolve: (v: Float32Array[]) => void;
  reject: (e: unknown) => void;
}

/**
 * Coalesces concurrent `embed` calls (for example from index jobs running side by side) into batched
 * calls of the wrapped embedder: texts arriving while `maxInFlight` calls are out wait for the next
 * batch, up to `maxBatch` texts per call. An idle embedder sees no added delay.
 */
export class BatchingEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  private queue: Pending[] = [];
  private queued = 0;
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly inner: Embedder,
    private readonly maxBatch = 256,
    private readonly maxInFlight = 2,
  ) {
    this.id = inner.id;
    this.dim = inner.dim;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ texts, resolve, reject });
      this.queued += texts.length;
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0 || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.queue.length === 0 || this.inFlight >= this.maxInFlight) return;
    const batch: Pending[] = [];
    let n = 0;
    while (this.queue.length > 0 && (batch.length === 0 || n + this.queue[0].texts.length <= this.maxBatch)) {
      const p = this.queue.shift() as Pending;
      batch.push(p);
      n += p.texts.length;
    }
    this.queued -= n;
    this.inFlight += 1;
    this.inner
      .embed(batch.flatMap((p) => p.texts))
      .then(
        (vectors) => {
          let i = 0;
          for (const p of batch) {
            p.resolve(vectors.slice(i, i + p.texts.length));
            i += p.texts.length;
          }
        },
        (err) => batch.forEach((p) => p.reject(err)),
      )
      .finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    this.schedule();
  }
}
