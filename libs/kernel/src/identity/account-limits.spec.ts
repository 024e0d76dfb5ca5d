import { ACCOUNT_LIMITS, effectiveLimits, readLimitOverrides } from './account-limits';

describe('per-account limits (docs/limits-and-security.md, "Per-account limits")', () => {
  const deployment = {
    requests_per_minute: 1000,
    model_tokens_per_day: 5000,
    max_nodes: 100,
    max_content_bytes: 4096,
    max_sessions: 10,
    max_users: 5,
    max_pending_index: 1000,
    max_pending_commits: 100,
    max_inflight: 32,
    max_scans: 2,
    max_large_searches: 2,
    max_large_bodies: 2,
  };

  it("the account's own values replace the deployment's, the others stay", () => {
    expect(effectiveLimits(deployment, {})).toEqual(deployment);
    expect(effectiveLimits(deployment, { max_nodes: 20, model_tokens_per_day: 0 })).toEqual({
      ...deployment,
      max_nodes: 20,
      model_tokens_per_day: 0,
    });
  });

  it('a stored row is read trusting nothing: out of bounds, not an integer, or no limit, it is left out', () => {
    expect(readLimitOverrides({ requests_per_minute: 60, max_nodes: 10, model_tokens_per_day: 0 })).toEqual({
      requests_per_minute: 60,
      max_nodes: 10,
      model_tokens_per_day: 0,
    });
    expect(
      readLimitOverrides({
        requests_per_minute: 0,
        max_nodes: 9,
        max_content_bytes: 1.5e3 + 0.5,
        model_tokens_per_day: ACCOUNT_LIMITS.model_tokens_per_day.max + 1,
        max_pending_index: -1,
        max_seats: 5,
      }),
    ).toEqual({});
    expect(readLimitOverrides({ requests_per_minute: '60', max_nodes: null, __proto__: { max_nodes: 50 } })).toEqual(
      {},
    );
    for (const stored of [null, undefined, 'x', 7, [60], []]) expect(readLimitOverrides(stored)).toEqual({});
  });
});
