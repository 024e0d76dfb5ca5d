import { BatchingEmbedder } from './batching-embedder';
import { Embedder } from './embedder.port';
import { HashingEmbedder } from './hashing-embedder';

/** Records each call the wrapped embedder receives; `gate` holds calls open until released. */
function recording(gate?: Promise<void>) {
  const inner = new HashingEmbedder({ dim: 32 });
  const calls: string[][] = [];
  const embedder: Embedder = {
    id: inner.id,
    dim: inner.dim,
    async embed(texts) {
      calls.push(texts);
      await gate;
      return inner.embed(texts);
    },
  };
  return { embedder, calls, inner };
}

describe('BatchingEmbedder', () => {
  it('answers each caller with its own vectors, identical to the wrapped embedder', async () => {
    const { embedder, inner } = recording();
    const b = new BatchingEmbedder(embedder);
    const [x, y] = await Promise.all([b.embed(['alpha', 'beta']), b.embed(['gamma'])]);
    expect(x).toEqual(await inner.embed(['alpha', 'beta']));
    expect(y).toEqual(await inner.embed(['gamma']));
    expect(b.id).toBe(inner.id);
  });

  it('coalesces calls made in one turn into one call', async () => {
    const { embedder, calls } = recording();
    const b = new BatchingEmbedder(embedder);
    await Promise.all(['a', 'b', 'c', 'd'].map((t) => b.embed([t])));
    expect(calls).toEqual([['a', 'b', 'c', 'd']]);
  });

  it('while the wrapped embedder is busy, queues what arrives and sends it as one batch of at most maxBatch', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { embedder, calls } = recording(gate);
    const b = new BatchingEmbedder(embedder, 3, 1);
    const first = b.embed(['one']);
    await new Promise((r) => setImmediate(r));
    const rest = ['two', 'three', 'four', 'five'].map((t) => b.embed([t]));
    release();
    await Promise.all([first, ...rest]);
    expect(calls).toEqual([['one'], ['two', 'three', 'four'], ['five']]);
  });

  it('fails every caller of a failed batch, and keeps serving afterwards', async () => {
    let fail = true;
    const inner = new HashingEmbedder({ dim: 32 });
    const b = new BatchingEmbedder({
      ...inner,
      id: inner.id,
      dim: 32,
      embed: async (t) => (fail ? Promise.reject(new Error('down')) : inner.embed(t)),
    });
    await expect(Promise.all([b.embed(['x']), b.embed(['y'])])).rejects.toThrow('down');
    fail = false;
    expect(await b.embed(['z'])).toHaveLength(1);
  });
});
