import { LlmError, MAX_RETRY_AFTER_MS, retryAfterMs } from './llm.error';

describe('LlmError.transient', () => {
  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [502, true],
    [400, false],
    [401, false],
    [404, false],
    [422, false],
  ])('HTTP %i → %s', (status, transient) => {
    expect(new LlmError('http', 'x', status).transient).toBe(transient);
  });

  it('a timeout, an unusable answer and a missing model are not transient; a connection that failed is', () => {
    expect(new LlmError('timeout', 'x').transient).toBe(false);
    expect(new LlmError('malformed', 'x').transient).toBe(false);
    expect(new LlmError('unavailable', 'no LLM configured').transient).toBe(false);
    expect(new LlmError('unavailable', 'unreachable', undefined, { unreachable: true }).transient).toBe(true);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-12-05T06:00:00Z');
  it.each([
    ['7', 7000],
    [' 1.5 ', 1500],
    ['Sat, 05 Dec 2026 06:00:30 GMT', 30_000],
    ['100000', MAX_RETRY_AFTER_MS],
  ])('%j → %i ms', (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms);
  });

  it.each([[undefined], [null], [''], ['0'], ['-3'], ['soon'], ['Sat, 05 Dec 2026 05:59:00 GMT']])(
    '%j → undefined',
    (header) => {
      expect(retryAfterMs(header, now)).toBeUndefined();
    },
  );
});
