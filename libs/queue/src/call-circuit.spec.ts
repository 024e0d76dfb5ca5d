import { CallCircuit } from './call-circuit';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failing = async (): Promise<string> => {
  throw new Error('provider 503');
};

/** A call to a provider that never answers; `aborted` tells whether its signal was aborted. */
function hanging(heedSignal: boolean) {
  const seen = { aborted: false };
  const call = (signal: AbortSignal) =>
    new Promise<string>((_, reject) => {
      signal.addEventListener('abort', () => {
        seen.aborted = true;
        if (heedSignal) reject(new Error('aborted by the caller'));
      });
    });
  return { call, seen };
}

// docs/limits-and-security.md, "A model that stops answering": one process's circuit of one call.
describe('a call circuit', () => {
  it('lets the calls in flight go when it opens, whether or not they heed their signal', async () => {
    const opened: boolean[] = [];
    const circuit = new CallCircuit('expand', 2, 60_000, (open) => opened.push(open));
    const heeding = hanging(true);
    const deaf = hanging(false);
    const first = circuit.run('acct', heeding.call);
    const second = circuit.run('acct', deaf.call);
    // The two calls that open it see their own failures, not a cut.
    await expect(circuit.run('acct', failing)).rejects.toThrow('provider 503');
    expect(heeding.seen.aborted).toBe(false);
    await expect(circuit.run('acct', failing)).rejects.toThrow('provider 503');
    expect(opened).toEqual([false, true]);
    expect(await first).toEqual({ skipped: 'cut' });
    expect(await second).toEqual({ skipped: 'cut' });
    expect([heeding.seen.aborted, deaf.seen.aborted]).toEqual([true, true]);
    expect(await circuit.run('acct', async () => 'made')).toEqual({ skipped: 'open' });
  });

  it('does not cut the call that finds out after the cool-down', async () => {
    const circuit = new CallCircuit('embed', 1, 100);
    const cutOne = hanging(true);
    const inFlight = circuit.run('acct', cutOne.call);
    await expect(circuit.run('acct', failing)).rejects.toThrow('provider 503');
    expect(await inFlight).toEqual({ skipped: 'cut' });
    await sleep(150);
    // The call finding out is made; another meanwhile is skipped, not cut, and the answer closes the circuit.
    let answer!: (v: string) => void;
    const probe = circuit.run('acct', () => new Promise<string>((r) => (answer = r)));
    expect(await circuit.run('acct', async () => 'meanwhile')).toEqual({ skipped: 'open' });
    answer('back');
    expect(await probe).toEqual({ skipped: false, value: 'back' });
    expect(await circuit.run('acct', async () => 'made')).toEqual({ skipped: false, value: 'made' });
  });

  it('without a failure threshold, runs every call', async () => {
    const circuit = new CallCircuit('digest', 0, 1000);
    await expect(circuit.run('acct', failing)).rejects.toThrow('provider 503');
    await expect(circuit.run('acct', failing)).rejects.toThrow('provider 503');
    expect(await circuit.run('acct', async () => 'made')).toEqual({ skipped: false, value: 'made' });
  });
});
