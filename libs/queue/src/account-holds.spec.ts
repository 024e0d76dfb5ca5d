import { AccountHolds } from './account-holds';
import { CallCircuit } from './call-circuit';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failing = async (): Promise<string> => {
  throw new Error('provider 503');
};
const answered = async () => 'made';
/** A call that never answers unless its signal is aborted; `aborted` says whether it was. */
function hanging() {
  const seen = { aborted: false };
  const call = (signal: AbortSignal) =>
    new Promise<string>((_, reject) =>
      signal.addEventListener('abort', () => {
        seen.aborted = true;
        reject(new Error('aborted by the caller'));
      }),
    );
  return { call, seen };
}

// docs/limits-and-security.md, "A model that stops answering": each account's own circuit.
describe("an account's own circuit", () => {
  it("holds the account whose own calls fail, lets its calls in flight go, and leaves the others' calls made", async () => {
    const circuit = new CallCircuit('digest', 3, 60_000);
    await circuit.run('beta', answered);
    const alphaInFlight = hanging();
    const betaInFlight = hanging();
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

  it('no circuit (0 failures): no account is ever held', async () => {
    const circuit = new CallCircuit('expand', 0, 60_000);
    for (let i = 0; i < 5; i++) await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    expect(await circuit.run('alpha', answered)).toEqual({ skipped: false, value: 'made' });
    expect(circuit.heldAccounts).toBe(0);
  });
});

describe('AccountHolds', () => {
  it('a call finding out that ends neither way (cut, client gone) lets the next one find out', () => {
    let now = 0;
    const holds = new AccountHolds(1, 1000, () => now);
    expect(holds.failed('alpha')).toBe(true);
    expect(holds.admit('alpha')).toBe(false);
    now = 1000;
    expect(holds.admit('alpha')).toBe('probe');
    expect(holds.admit('alpha')).toBe(false);
    holds.settled('alpha');
    expect(holds.admit('alpha')).toBe('probe');
    // A renewed hold is not a new one (its calls in flight were let go when it began).
    expect(holds.failed('alpha')).toBe(false);
    expect(holds.admit('beta')).toBe('go');
  });

  it('keeps a bounded number of streaks, forgetting the oldest', () => {
    const holds = new AccountHolds(2, 1000, () => 0);
    holds.failed('first');
    for (let i = 0; i < 10_000; i++) holds.failed(`a${i}`);
    // first's one failure was forgotten: one more is not two in a row.
    expect(holds.failed('first')).toBe(false);
    expect(holds.failed('a9999')).toBe(true);
  });
});
