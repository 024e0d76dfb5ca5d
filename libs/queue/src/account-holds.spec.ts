import { AccountHolds } from './account-holds';

// docs/limits-and-security.md, "A model that stops answering": each account's own circuit, its bookkeeping
// (CallCircuit's use of it: call-circuit.spec.ts).
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

  it("another process's hold holds the account until its word, or twice its cool-down; this process's failures then renew it", () => {
    let now = 0;
    const holds = new AccountHolds(3, 1000, () => now);
    expect(holds.heldElsewhere('alpha', 1000)).toBe(true);
    expect(holds.heldElsewhere('alpha', 1000)).toBe(false); // renewed, not new
    expect([holds.admit('alpha'), holds.admit('beta'), holds.held]).toEqual([false, 'go', 1]);
    // Past the cool-down the other process's call finds out: not this one's.
    now = 1500;
    expect(holds.admit('alpha')).toBe(false);
    // That call was answered: the account's hold ends here too.
    expect(holds.answered('alpha')).toBe(true);
    expect(holds.admit('alpha')).toBe('go');
    expect(holds.answered('alpha')).toBe(false);
    // No word at all: after twice the cool-down this process finds out itself, and one failure renews the hold
    // (the account's streak counts as the threshold's).
    holds.heldElsewhere('alpha', 1000);
    now = 3500;
    expect(holds.admit('alpha')).toBe('probe');
    expect(holds.failed('alpha')).toBe(false);
    holds.settled('alpha');
    expect([holds.isHeld('alpha'), holds.admit('alpha')]).toEqual([true, false]);
    now = 4500;
    expect(holds.admit('alpha')).toBe('probe');
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
