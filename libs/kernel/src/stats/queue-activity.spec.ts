import { encodeQueueFailure, parseQueueCounters, parseQueueFailure, queueActivity } from './queue-activity';

const c = (processed: number, retried: number, failed: number) => ({ processed, retried, failed });
const f = (message: string, account: string | null = 'acme') => ({ message, at: 1, account });

describe('queueActivity', () => {
  it('reports the growth of each counter and the newest failures since the first snapshot', () => {
    const r = queueActivity(c(10, 2, 3), c(14, 3, 5), [f('new 2'), f('new 1'), f('old')], 50, null);
    expect(r).toEqual({
      processed: 4,
      requeue_count: 1,
      error_count: 2,
      errors: [{ message: 'new 2' }, { message: 'new 1' }],
    });
  });

  it('reports zeros when nothing happened, even with old failures on record', () => {
    expect(queueActivity(c(5, 1, 1), c(5, 1, 1), [f('old')], 50, null)).toEqual({
      processed: 0,
      requeue_count: 0,
      error_count: 0,
      errors: [],
    });
  });

  it('counts from zero after a reset (a counter lower than before)', () => {
    expect(queueActivity(c(100, 0, 9), c(3, 0, 1), [f('after reset')], 50, null)).toMatchObject({
      processed: 3,
      error_count: 1,
      errors: [{ message: 'after reset' }],
    });
  });

  it('bounds the messages by maxErrors and by what the capped list still holds', () => {
    const recent = Array.from({ length: 5 }, (_, i) => f(`m${i}`));
    expect(queueActivity(c(0, 0, 0), c(0, 0, 40), recent, 3, null).errors).toHaveLength(3);
    expect(queueActivity(c(0, 0, 0), c(0, 0, 40), recent, 50, null)).toMatchObject({ error_count: 40 });
    expect(queueActivity(c(0, 0, 0), c(0, 0, 40), recent, 50, null).errors).toHaveLength(5);
  });
});

describe("queueActivity's viewer", () => {
  it("shows an account only its own failures' messages (all counts stay), the root key all", () => {
    const recent = [f('theirs', 'other'), f('mine', 'acme'), f('malformed', null), f('older', 'acme')];
    expect(queueActivity(c(0, 0, 0), c(0, 0, 3), recent, 50, 'acme')).toEqual({
      processed: 0,
      requeue_count: 0,
      error_count: 3,
      errors: [{ message: 'mine' }],
    });
    expect(queueActivity(c(0, 0, 0), c(0, 0, 3), recent, 50, null).errors).toHaveLength(3);
  });
});

describe('queue counter and failure records', () => {
  it('reads a hash with missing or junk fields as zeros', () => {
    expect(parseQueueCounters({ processed: '7', failed: 'x', retried: '-2' })).toEqual(c(7, 0, 0));
    expect(parseQueueCounters(null)).toEqual(c(0, 0, 0));
  });

  it('round-trips a failure, cutting its message to the bound, and keeps junk entries as placeholders', () => {
    expect(parseQueueFailure(encodeQueueFailure('INTERNAL: boom', 42, 100, 'acme'))).toEqual({
      message: 'INTERNAL: boom',
      at: 42,
      account: 'acme',
    });
    expect(parseQueueFailure(encodeQueueFailure('x', 1, 100, null)).account).toBeNull();
    const long = parseQueueFailure(encodeQueueFailure('😀'.repeat(1000), 1, 10, null));
    expect(long.message).toBe(`${'😀'.repeat(10)}…`);
    expect(parseQueueFailure('not json').message).toBe('unreadable failure record');
    expect(parseQueueFailure('null').message).toBe('unreadable failure record');
  });
});
