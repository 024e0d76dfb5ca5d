import { retryAborted } from './store-errors';

describe('retryAborted', () => {
  const failing = (codes: (string | undefined)[]) => {
    let calls = 0;
    const fn = async () => {
      const code = codes[calls++];
      if (calls <= codes.length) throw Object.assign(new Error(`attempt ${calls}`), { code });
      return `done after ${calls}`;
    };
    return { fn, calls: () => calls };
  };

  it('runs a transaction aborted as a deadlock victim or a serialization failure again', async () => {
    const t = failing(['40P01', '40001']);
    await expect(retryAborted(t.fn)).resolves.toBe('done after 3');
    expect(t.calls()).toBe(3);
  });

  it('gives up after three attempts, and throws any other error at once', async () => {
    const aborted = failing(['40P01', '40P01', '40P01', '40P01']);
    await expect(retryAborted(aborted.fn)).rejects.toThrow('attempt 3');
    expect(aborted.calls()).toBe(3);
    const other = failing(['23505']);
    await expect(retryAborted(other.fn)).rejects.toThrow('attempt 1');
    expect(other.calls()).toBe(1);
  });
});
