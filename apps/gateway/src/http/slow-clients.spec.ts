import { bodyDeadlineExtension, idleBounded } from './slow-clients';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Yields `items`, waiting `gaps[i]` ms before item i; `failLater` rejects a read after the last item. */
async function* paced<T>(items: T[], gaps: number[], failLater?: number): AsyncGenerator<T> {
  for (let i = 0; i < items.length; i++) {
    await sleep(gaps[i] ?? 0);
    yield items[i]!;
  }
  if (failLater !== undefined) {
    await sleep(failLater);
    throw new Error('socket closed');
  }
}

const quiet = () => new Error('quiet');

describe('idleBounded', () => {
  it('passes every item through, sync sources too', async () => {
    const out: number[] = [];
    for await (const n of idleBounded(paced([1, 2, 3], [5, 5, 5]), 200, quiet)) out.push(n);
    expect(out).toEqual([1, 2, 3]);
    const sync: string[] = [];
    for await (const s of idleBounded(['a', 'b'], 200, quiet)) sync.push(s);
    expect(sync).toEqual(['a', 'b']);
  });

  it("counts only the wait for the source, not the consumer's work between items", async () => {
    const out: number[] = [];
    for await (const n of idleBounded(paced([1, 2], [5, 5]), 100, quiet)) {
      out.push(n);
      await sleep(250);
    }
    expect(out).toEqual([1, 2]);
  });

  it('fails with the given error when the next item is late, and the read left pending settles unnoticed', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const out: number[] = [];
      let error: unknown;
      try {
        for await (const n of idleBounded(paced([1, 2], [5, 300], 0), 100, quiet)) out.push(n);
      } catch (e) {
        error = e;
      }
      expect(out).toEqual([1]);
      expect((error as Error).message).toBe('quiet');
      await sleep(400); // the source's pending read yields 2, then its next read is never asked for
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('lets a late read that fails go unnoticed too', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(
        (async () => {
          for await (const _ of idleBounded(paced([], [], 300), 100, quiet)) void _;
        })(),
      ).rejects.toThrow('quiet');
      await sleep(400);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('bodyDeadlineExtension', () => {
  it('buys one second per min-rate bytes, nothing when off or nothing came', () => {
    expect(bodyDeadlineExtension(16_384, 16_384)).toBe(1000);
    expect(bodyDeadlineExtension(10 * 1024 * 1024, 16_384)).toBe(640_000);
    expect(bodyDeadlineExtension(6, 1024)).toBeCloseTo(5.86, 2);
    expect(bodyDeadlineExtension(16_384, 0)).toBe(0);
    expect(bodyDeadlineExtension(0, 16_384)).toBe(0);
  });
});
