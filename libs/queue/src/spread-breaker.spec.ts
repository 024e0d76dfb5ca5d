import { CircuitState } from 'cockatiel';
import { CallCircuit } from './call-circuit';
import { SpreadBreaker } from './spread-breaker';

const failing = async (): Promise<string> => {
  throw new Error('provider 503');
};
const answered = async () => 'made';

// docs/limits-and-security.md, "A model that stops answering": one tenant's failures and the deployment's circuit.
describe('a circuit shared by several accounts', () => {
  it("does not open on one account's failures while others call, and opens when several accounts' fail", async () => {
    const circuit = new CallCircuit('digest', 4, 60_000);
    expect(await circuit.run('beta', answered)).toEqual({ skipped: false, value: 'made' });
    expect(await circuit.run('gamma', answered)).toEqual({ skipped: false, value: 'made' });
    for (let i = 0; i < 4; i++) await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    // Four in a row, all alpha's: alpha counts for two of the four, and others called lately. alpha's own
    // circuit holds its calls now (AccountHolds); the others' are made.
    expect(await circuit.run('alpha', answered)).toEqual({ skipped: 'held' });
    await expect(circuit.run('beta', failing)).rejects.toThrow('provider 503');
    // alpha's two and beta's one are three; gamma called lately and did not fail.
    await expect(circuit.run('gamma', failing)).rejects.toThrow('provider 503');
    // alpha's two, beta's and gamma's: four, the circuit opens.
    expect(await circuit.run('beta', answered)).toEqual({ skipped: 'open' });
  });

  it('opens when every account that called lately is failing', async () => {
    const circuit = new CallCircuit('digest', 4, 60_000);
    expect(await circuit.run('beta', answered)).toEqual({ skipped: false, value: 'made' });
    for (let i = 0; i < 4; i++) await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    // alpha's two (capped) and beta's one are three of four, but alpha and beta are all that called lately.
    await expect(circuit.run('beta', failing)).rejects.toThrow('provider 503');
    expect(await circuit.run('beta', answered)).toEqual({ skipped: 'open' });
  });

  it("opens on one account's failures when it is the only one calling", async () => {
    const circuit = new CallCircuit('expand', 3, 60_000);
    for (let i = 0; i < 3; i++) await expect(circuit.run('alpha', failing)).rejects.toThrow('provider 503');
    expect(await circuit.run('alpha', answered)).toEqual({ skipped: 'open' });
  });

  it('forgets another account that has not called within the window', () => {
    let now = 0;
    const breaker = new SpreadBreaker(2, 1000, () => now);
    breaker.called('beta');
    now = 500;
    breaker.called('alpha');
    breaker.failing('alpha');
    expect(breaker.failure(CircuitState.Closed)).toBe(false);
    breaker.failing('alpha');
    expect(breaker.failure(CircuitState.Closed)).toBe(false); // beta called 500 ms ago
    now = 1600;
    breaker.called('alpha');
    breaker.failing('alpha');
    expect(breaker.failure(CircuitState.Closed)).toBe(true); // beta's call is past the window
    breaker.success(CircuitState.Closed);
    breaker.failing('alpha');
    expect(breaker.failure(CircuitState.Closed)).toBe(false); // a success started a new streak
  });
});
