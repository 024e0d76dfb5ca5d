import { Piscina } from 'piscina';
import { AccountFairQueue, forAccount } from './account-fair-queue';

// docs/limits-and-security.md, "Large plans on worker threads": the plan threads' line, account by account.
type Task = Parameters<AccountFairQueue['push']>[0];
/** A task as piscina queues it: the payload's queue options under the symbol. */
const task = (account: string | null, name: string) => {
  const payload = account === null ? {} : forAccount({}, account);
  return {
    name,
    [Piscina.queueOptionsSymbol]: (payload as Record<symbol, unknown>)[Piscina.queueOptionsSymbol] ?? null,
  };
};
const drain = (q: AccountFairQueue) => {
  const out: string[] = [];
  for (let t = q.shift(); t !== null; t = q.shift()) out.push((t as unknown as { name: string }).name);
  return out;
};

describe('AccountFairQueue', () => {
  it("serves the accounts in turn, each account's plans in the order they came", () => {
    const q = new AccountFairQueue();
    for (const [account, name] of [
      ['a', 'a1'],
      ['a', 'a2'],
      ['a', 'a3'],
      ['b', 'b1'],
      ['c', 'c1'],
      ['b', 'b2'],
    ])
      q.push(task(account, name) as unknown as Task);
    expect(q.size).toBe(6);
    expect(drain(q)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(q.size).toBe(0);
    expect(q.shift()).toBeNull();
  });

  it('removes a withdrawn plan, and an account with nothing left loses its turn', () => {
    const q = new AccountFairQueue();
    const [a1, a2, b1, none] = [task('a', 'a1'), task('a', 'a2'), task('b', 'b1'), task(null, 'x1')].map(
      (t) => t as unknown as Task,
    );
    for (const t of [a1, a2, b1, none]) q.push(t);
    q.remove(b1);
    q.remove(b1); // already gone: nothing happens
    q.remove(a1);
    expect(q.size).toBe(2);
    expect(drain(q)).toEqual(['a2', 'x1']);
  });

  it('puts a plan back at the head of the line, its account served next', () => {
    const q = new AccountFairQueue();
    for (const [account, name] of [
      ['a', 'a1'],
      ['b', 'b1'],
      ['b', 'b2'],
    ])
      q.push(task(account, name) as unknown as Task);
    const first = q.shift()!;
    const second = q.shift()!;
    q.unshift(second);
    q.unshift(first);
    expect(drain(q)).toEqual(['a1', 'b1', 'b2']);
  });
});
