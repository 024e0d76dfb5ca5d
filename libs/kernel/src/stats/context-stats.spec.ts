import { STATS_KEYS } from '../testing/stats-keys';
import { normalizePenalties } from '../gathering/penalties';
import { planEntries } from '../planning/plan-entries';
import { deprecatedStats } from '../request/recall-fold';
import { buildContextStats, StatsInput } from './context-stats';

function input(over: Partial<StatsInput> = {}): StatsInput {
  return {
    searched: { all: 0 },
    candidates: 0,
    excluded: 0,
    origins: { actor_peer: 0, self: 0, other_peer: 0 },
    peerScope: 'all',
    quotas: null,
    retrievalErrors: [],
    plan: planEntries({ candidates: [], contents: new Map(), maxTokens: 1600 }).stats,
    purpose: null,
    queryExpansion: 'off',
    plannedQueries: ['hello'],
    scoreThreshold: null,
    otherPeerPenalties: normalizePenalties(null),
    rewrite: 'off',
    rewriteUsage: null,
    dedup: { turns: 0, status: 'off', cooled: 0, turn: null },
    ...over,
  };
}

describe('buildContextStats', () => {
  it('the empty context answer, keys in emission order', () => {
    const stats = buildContextStats(input());
    expect(JSON.stringify(stats)).toBe(
      '{"searched":{"all":0},"candidates":0,"excluded":0,"origins":{"actor_peer":0,"self":0,"other_peer":0},"peer_scope":"all","quotas":null,' +
        '"max_tokens":1600,"used_tokens":0,"per_entry_cap":3200,"returned":0,"dropped":0,"deduped":0,"detail":null,"tier_counts":{},' +
        '"fill":{"floor_tokens":0,"overview_upgrades":0,"full_upgrades":0,"spare_upgrades":0},"purpose":null,"query_expansion":"off",' +
        '"planned_queries":["hello"],"score_threshold":null,' +
        '"other_peer_penalties":{"events":0.1,"entities":0.1,"preferences":0.02,"experiences":0.02,"resources":0.02,"skills":0.02,"memories":0.1},' +
        '"rewrite":"off","rewrite_usage":null,"dedup":{"turns":0,"status":"off","cooled":0,"turn":null},"redundant":0,"weak":0,"lexical_only":0}',
    );
  });

  it.each([
    {
      name: 'all optional keys present',
      over: { retrievalErrors: ['RuntimeError: x'], ignored: ['level'], deprecated: deprecatedStats([]) },
    },
    { name: 'only retrieval errors', over: { retrievalErrors: ['E: 1'] } },
    { name: 'only deprecation (recall)', over: { deprecated: deprecatedStats(['render']) } },
  ])('keeps the contract order: $name', ({ over }) => {
    const keys = Object.keys(buildContextStats(input(over)));
    expect(keys).toEqual(STATS_KEYS.filter((key) => keys.includes(key)));
  });

  it.each([
    { name: 'no errors → key absent', errors: [], out: undefined },
    { name: 'at most five errors', errors: ['a', 'b', 'c', 'd', 'e', 'f'], out: ['a', 'b', 'c', 'd', 'e'] },
    { name: 'each cut to 200 chars', errors: ['x'.repeat(250)], out: ['x'.repeat(200)] },
  ])('retrieval_errors: $name', ({ errors, out }) => {
    expect(buildContextStats(input({ retrievalErrors: errors })).retrieval_errors).toEqual(out);
  });

  it.each([
    { name: 'empty ignored list is omitted', ignored: [], present: false },
    { name: 'non-empty ignored list is kept', ignored: ['limit'], present: true },
  ])('$name', ({ ignored, present }) => {
    expect('ignored' in buildContextStats(input({ ignored }))).toBe(present);
  });

  it('keeps zero quota entries and copies inputs', () => {
    const quotas = { events: 10, entities: 10, preferences: 3, experiences: 0 };
    const stats = buildContextStats(input({ quotas, purpose: 'coding', scoreThreshold: 0.1 }));
    expect(stats.quotas).toEqual(quotas);
    expect(stats.quotas).not.toBe(quotas);
    expect([stats.purpose, stats.score_threshold]).toEqual(['coding', 0.1]);
  });
});
