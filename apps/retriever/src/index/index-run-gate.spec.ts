import { IndexRunGate } from './index-run-gate';

/** A run that records when it starts and ends, and ends when released. */
function run(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  const work = async () => {
    log.push(`${name}+`);
    await done;
    log.push(`${name}-`);
  };
  return { work, release };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('IndexRunGate', () => {
  it('runs shared runs together; a run alone waits for them, and runs arriving after it wait for it', async () => {
    const gate = new IndexRunGate();
    const log: string[] = [];
    const [a, b, solo, c] = ['a', 'b', 'solo', 'c'].map((n) => run(log, n));
    const all = [gate.shared(a.work), gate.shared(b.work), gate.alone(solo.work), gate.shared(c.work)];
    await turn();
    expect(log).toEqual(['a+', 'b+']);
    a.release();
    await turn();
    expect(log).toEqual(['a+', 'b+', 'a-']);
    b.release();
    await turn();
    expect(log).toEqual(['a+', 'b+', 'a-', 'b-', 'solo+']);
    solo.release();
    c.release();
    await Promise.all(all);
    expect(log).toEqual(['a+', 'b+', 'a-', 'b-', 'solo+', 'solo-', 'c+', 'c-']);
  });

  it('lets the next runs go when a run fails', async () => {
    const gate = new IndexRunGate();
    await expect(gate.alone(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.shared(() => Promise.resolve(7))).resolves.toBe(7);
  });
});
