import { CallCircuit } from './call-circuit';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failing = async (): Promise<string> => {
  throw new Error('provider 503');
};
const answered = async () => 'made';

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

  it('without a failure threshold, runs every call, and holds no account', async () => {
    const circuit = new CallCircuit('digest', 0, 1000);
    for (let i = 0; i < 5; i++) await expect(circuit.run('acct', failing)).rejects.toThrow('provider 503');
    expect(await circuit.run('acct', async () => 'made')).toEqual({ skipped: false, value: 'made' });
    expect(circuit.heldAccounts).toBe(0);
  });
});

// docs/limits-and-security.md, "A model that stops answering": each account's own circuit.
describe("an account's own circuit", () => {
  it("holds the account whose own calls fail, lets its calls in flight go, and leaves the others' calls made", async () => {
    const circuit = new CallCircuit('digest', 3, 60_000);
    await circuit.run('beta', answered);
    const alphaInFlight = hanging(true);
    const betaInFlight = hanging(true);
    const alphaWaiting = circuit.run('alpha', alphaInFlight.call);
    void circuit.run('beta', betaInFlight.call);
    for (let i = 0; i < 3; i++) await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    // alpha's third failure holds alpha: its call in flight is let go, beta's is not.
    expect(await alphaWaiting).toEqual({ skipped: 'cut' });
    expect([alphaInFlight.seen.aborted, betaInFlight.seen.aborted]).toEqual([true, false]);
    expect(circuit.heldAccounts).toBe(1);
    // alpha's next call is not made; beta's are, the circuit being closed for it.
    let made = false;
    const held = await circuit.run('alpha', async () => {
      made = true;
      return 'made';
    });
    expect(held).toEqual({ skipped: 'held' });
    expect(made).toBe(false);
    expect(await circuit.run('beta', answered)).toEqual({ skipped: false, value: 'made' });
  });

  it("counts a held account among the failing ones: the others' failures then open the circuit", async () => {
    const circuit = new CallCircuit('digest', 2, 60_000);
    await circuit.run('beta', answered);
    for (let i = 0; i < 2; i++) await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    await circuit.run('beta', answered);
    // beta's two failures are one of two (capped), but alpha, the only other caller, is held: an outage.
    for (let i = 0; i < 2; i++) await expect(circuit.run('beta', failing)).rejects.toThrow('provider 503');
    expect(await circuit.run('gamma', answered)).toEqual({ skipped: 'open' });
  });

  it('after the cool-down one call finds out (the others held meanwhile); its answer ends the hold, its failure renews it', async () => {
    const circuit = new CallCircuit('expand', 2, 150);
    // Another account calling keeps the circuit closed (alpha alone does not speak for the deployment).
    await circuit.run('beta', answered);
    for (let i = 0; i < 2; i++) await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    expect(await circuit.run('alpha', answered)).toEqual({ skipped: 'held' });
    await sleep(200);
    // The first call after the hold finds out; while it runs, alpha's others are held.
    let release!: (v: string) => void;
    const probe = circuit.run('alpha', () => new Promise<string>((r) => (release = r)));
    expect(await circuit.run('alpha', answered)).toEqual({ skipped: 'held' });
    await expect(circuit.run('alpha', failing)).resolves.toEqual({ skipped: 'held' });
    release('made');
    expect(await probe).toEqual({ skipped: false, value: 'made' });
    expect(circuit.heldAccounts).toBe(0);
    expect(await circuit.run('alpha', answered)).toEqual({ skipped: false, value: 'made' });

    // Held again; the call finding out fails: held for another cool-down.
    await circuit.run('beta', answered);
    for (let i = 0; i < 2; i++) await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    await circuit.run('beta', answered);
    await sleep(200);
    await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    expect(await circuit.run('alpha', answered)).toEqual({ skipped: 'held' });
    expect(circuit.heldAccounts).toBe(1);
  });

  it('ends every hold when the circuit closes (the provider answers the deployment again)', async () => {
    const circuit = new CallCircuit('digest', 2, 150);
    // alpha alone calls: its failures open the circuit, and hold alpha.
    for (let i = 0; i < 2; i++) await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    expect(circuit.heldAccounts).toBe(1);
    await sleep(200);
    // beta's call finds the provider back for the deployment: alpha's hold ends with the opening.
    expect(await circuit.run('beta', answered)).toEqual({ skipped: false, value: 'made' });
    expect(circuit.heldAccounts).toBe(0);
    expect(await circuit.run('alpha', answered)).toEqual({ skipped: false, value: 'made' });
  });
});
