// docs/contract.md#context-request-body (plugin, unit level) and the
// docs/contract.md#context-request-body/#fallback-chain body rules around them.
import { loadRecallConfig, RecallConfig } from './recall-config';
import {
  buildContextSearchBody,
  buildLegacyRecallBody,
  CODING_WEIGHTS,
  scaleQuotas,
  V1_WEIGHTS,
} from './request-bodies';

/** A config as the environment `env` gives it (HOME points nowhere, so no config file is read). */
function config(env: Record<string, string> = {}): RecallConfig {
  return loadRecallConfig({ env: { HOME: '/nonexistent-muninn-home', ...env } });
}

const sum = (q: Record<string, number>) => Object.values(q).reduce((a, b) => a + b, 0);

describe('context request body', () => {
  it('unconfigured defaults + session → no limit/quotas/max_tokens/query_expansion/rewrite_max_bullets; coding, 0.35, session, dedup 5', () => {
    const body = buildContextSearchBody(config(), { query: 'what did we decide', sessionId: 'cx-defaults' });
    for (const absent of ['limit', 'quotas', 'max_tokens', 'query_expansion', 'rewrite_max_bullets'])
      expect(body).not.toHaveProperty(absent);
    expect(body).toMatchObject({
      query: 'what did we decide',
      mode: 'context',
      purpose: 'coding',
      score_threshold: 0.35,
      session_id: 'cx-defaults',
      dedup_turns: 5,
    });
  });

  it.each([
    [
      'recallLimit 1 → every bucket 1 (sum 6)',
      { OPENVIKING_RECALL_LIMIT: '1' },
      { quotas: { events: 1, entities: 1, preferences: 1, experiences: 1, resources: 1, skills: 1 } },
    ],
    ['recallMaxTokens 800 → max_tokens 800', { OPENVIKING_RECALL_MAX_TOKENS: '800' }, { max_tokens: 800 }],
    [
      'recallLimit 10 → the coding preset',
      { OPENVIKING_RECALL_LIMIT: '10' },
      { quotas: { events: 1, entities: 2, preferences: 1, experiences: 1, resources: 3, skills: 2 } },
    ],
    ['query expansion configured off', { OPENVIKING_RECALL_QUERY_EXPANSION: 'off' }, { query_expansion: 'off' }],
    ['score threshold configured', { OPENVIKING_SCORE_THRESHOLD: '0.2' }, { score_threshold: 0.2 }],
    ['peer scope actor', { OPENVIKING_RECALL_PEER_SCOPE: 'actor' }, { peer_scope: 'actor' }],
  ])('configured knobs: %s', (_name, env: Record<string, string>, expected) => {
    const body = buildContextSearchBody(config(env), { query: 'q' });
    expect(body).toMatchObject(expected);
    if ('quotas' in expected)
      expect(sum(body.quotas as Record<string, number>)).toBe(Math.max(6, Number(env['OPENVIKING_RECALL_LIMIT'])));
  });

  it('sends session fields only with a session, dedup_turns only when > 0, and never limit', () => {
    expect(buildContextSearchBody(config(), { query: 'q' })).not.toHaveProperty('session_id');
    expect(buildContextSearchBody(config(), { query: 'q' })).not.toHaveProperty('dedup_turns');
    expect(
      buildContextSearchBody(config({ OPENVIKING_RECALL_DEDUP_TURNS: '0' }), { query: 'q', sessionId: 's' }),
    ).not.toHaveProperty('dedup_turns');
    expect(buildContextSearchBody(config({ OPENVIKING_RECALL_LIMIT: '7' }), { query: 'q' })).not.toHaveProperty(
      'limit',
    );
  });

  it('caps exclude_uris at 200', () => {
    const uris = Array.from({ length: 250 }, (_, i) => `viking://resources/r${i}.md`);
    expect(buildContextSearchBody(config(), { query: 'q', excludeUris: uris }).exclude_uris).toHaveLength(200);
    expect(buildContextSearchBody(config(), { query: 'q', excludeUris: [] })).not.toHaveProperty('exclude_uris');
  });

  it.each([
    ['server', false, true],
    ['server', true, true],
    ['auto', false, 'auto'],
    ['auto', true, undefined],
    ['client', false, undefined],
    ['off', false, undefined],
  ] as const)('compress mode %s (local compressor %s) → rewrite %s', (mode, local, rewrite) => {
    const body = buildContextSearchBody(config({ OPENVIKING_RECALL_COMPRESS: mode }), {
      query: 'q',
      hasLocalCompressor: local,
    });
    expect(body.rewrite).toBe(rewrite);
  });

  it('rewrite_max_bullets only when configured and a rewrite is requested', () => {
    expect(
      buildContextSearchBody(
        config({ OPENVIKING_RECALL_COMPRESS: 'server', OPENVIKING_RECALL_COMPRESS_MAX_BULLETS: '3' }),
        { query: 'q' },
      ).rewrite_max_bullets,
    ).toBe(3);
    expect(
      buildContextSearchBody(
        config({ OPENVIKING_RECALL_COMPRESS: 'off', OPENVIKING_RECALL_COMPRESS_MAX_BULLETS: '3' }),
        { query: 'q' },
      ),
    ).not.toHaveProperty('rewrite_max_bullets');
    expect(buildContextSearchBody(config({ OPENVIKING_RECALL_COMPRESS: 'server' }), { query: 'q' })).not.toHaveProperty(
      'rewrite_max_bullets',
    );
  });
});

describe('quota scaling', () => {
  it.each([
    [1, { events: 1, entities: 1, preferences: 1, experiences: 1, resources: 1, skills: 1 }],
    [5, { events: 1, entities: 1, preferences: 1, experiences: 1, resources: 1, skills: 1 }],
    [6, { events: 1, entities: 1, preferences: 1, experiences: 1, resources: 1, skills: 1 }],
    [7, { events: 1, entities: 1, preferences: 1, experiences: 1, resources: 2, skills: 1 }],
    [8, { events: 1, entities: 2, preferences: 1, experiences: 1, resources: 2, skills: 1 }],
    [10, { events: 1, entities: 2, preferences: 1, experiences: 1, resources: 3, skills: 2 }],
    [20, { events: 2, entities: 4, preferences: 2, experiences: 2, resources: 6, skills: 4 }],
  ])('coding weights, recallLimit %i', (limit, quotas) => {
    expect(scaleQuotas(limit, CODING_WEIGHTS)).toEqual(quotas);
  });

  it.each([
    [1, { events: 1, entities: 1, preferences: 1 }],
    [3, { events: 1, entities: 1, preferences: 1 }],
    [10, { events: 5, entities: 4, preferences: 1 }],
    [23, { events: 10, entities: 10, preferences: 3 }],
  ])('v1 weights, recallLimit %i', (limit, quotas) => {
    expect(scaleQuotas(limit, V1_WEIGHTS)).toEqual(quotas);
  });
});

describe('legacy /recall body', () => {
  it.each([
    [
      'defaults',
      {},
      {
        quotas: { events: 5, entities: 4, preferences: 1, experiences: 0 },
        max_chars: 5000,
        min_score: 0.35,
        render: true,
      },
    ],
    [
      'small limit: max_chars floor 1000',
      { OPENVIKING_RECALL_LIMIT: '1' },
      { quotas: { events: 1, entities: 1, preferences: 1, experiences: 0 }, max_chars: 1000 },
    ],
    [
      'threshold and content chars',
      { OPENVIKING_SCORE_THRESHOLD: '0.5', OPENVIKING_RECALL_MAX_CONTENT_CHARS: '300' },
      { min_score: 0.5, max_chars: 3000 },
    ],
    ['actor scope', { OPENVIKING_RECALL_PEER_SCOPE: 'actor' }, { peer_scope: 'actor' }],
  ])('%s', (_name, env, expected) => {
    const body = buildLegacyRecallBody(config(env), 'q');
    expect(body).toMatchObject({ query: 'q', ...expected });
    if (!('peer_scope' in expected)) expect(body).not.toHaveProperty('peer_scope');
  });
});
