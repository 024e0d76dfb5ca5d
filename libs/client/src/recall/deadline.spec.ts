// docs/contract.md#deadlines: the context request's deadline follows the stages the body asks for.
import { contextRequestTimeoutMs } from './deadline';

const cfg = { timeoutMs: 15000, recallContextTimeoutMs: 0 };

describe('context request deadline', () => {
  it.each([
    ['rewrite requested', { rewrite: true }, 45000, 35000],
    ['rewrite "auto" requested', { rewrite: 'auto' as const }, 45000, 35000],
    ['session only (expansion defaults to auto)', { session_id: 's' }, 15000, undefined],
    ['session with query_expansion auto', { session_id: 's', query_expansion: 'auto' as const }, 15000, undefined],
    ['neither', {}, undefined, undefined],
    ['session + query_expansion off', { session_id: 's', query_expansion: 'off' as const }, undefined, undefined],
    [
      'rewrite false + session + expansion off',
      { rewrite: false, session_id: 's', query_expansion: 'off' as const },
      undefined,
      undefined,
    ],
  ])('%s → main %s, #3534 %s', (_name, body, main, v3534) => {
    expect(contextRequestTimeoutMs(cfg, body)).toBe(main);
    expect(contextRequestTimeoutMs(cfg, body, '3534')).toBe(v3534);
  });

  it('main outlasts both server fuses for a rewrite (> 35000)', () => {
    expect(contextRequestTimeoutMs(cfg, { rewrite: true })).toBeGreaterThan(35000);
  });

  it.each([
    [{ timeoutMs: 60000, recallContextTimeoutMs: 0 }, { rewrite: true }, 60000],
    [{ timeoutMs: 20000, recallContextTimeoutMs: 0 }, { session_id: 's' }, 20000],
    [{ timeoutMs: 15000, recallContextTimeoutMs: 50000 }, { rewrite: true }, 50000],
    [{ timeoutMs: 15000, recallContextTimeoutMs: 50000 }, {}, 50000],
    [{ timeoutMs: 15000, recallContextTimeoutMs: 200 }, {}, 1000],
  ])('config %j with body %j → %i', (c, body, expected) => {
    expect(contextRequestTimeoutMs(c, body)).toBe(expected);
  });
});
