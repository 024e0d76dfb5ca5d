import { KernelError, KernelErrorCode } from '../kernel.error';
import { validateDetailField, validateQuotasField } from './category-keys';
import {
  assertSearchModeFields,
  contextOnlyFieldsPresent,
  isContextRequest,
  modeMismatchMessage,
} from './context-fields';
import { effectiveLimit } from './context-bounds';
import { canonicalizeExcludeUris, excludedSet } from './exclude-uris';
import { ignoredFields } from './ignored-fields';
import { deprecatedStats, foldRecallRequest, RECALL_DEPRECATION_HEADERS } from './recall-fold';
import { parseRewrite } from './rewrite-mode';
import { roundHalfEven } from './round-half-even';

function failure(run: () => unknown): KernelError {
  try {
    run();
  } catch (error) {
    if (error instanceof KernelError) return error;
    throw error;
  }
  throw new Error('expected a KernelError');
}

describe('mode fields', () => {
  it.each([
    {
      name: 'max_tokens without mode',
      body: { query: 'hello', max_tokens: 1000 },
      message: "max_tokens require mode='context'; set mode='context' or drop these fields",
    },
    {
      name: 'explicit null still counts',
      body: { query: 'q', quotas: null },
      message: "quotas require mode='context'; set mode='context' or drop these fields",
    },
    {
      name: 'two fields sorted',
      body: { query: 'q', max_tokens: 900, dedup_turns: 2 },
      message: "dedup_turns, max_tokens require mode='context'; set mode='context' or drop these fields",
    },
    {
      name: 'explicit list mode',
      body: { mode: 'list', rewrite: false },
      message: "rewrite require mode='context'; set mode='context' or drop these fields",
    },
    {
      name: 'target_uri in context mode',
      body: { mode: 'context', target_uri: 'viking://user/test_user' },
      message: "target_uri is not supported in mode='context'",
    },
    {
      name: 'non-empty target list in context mode',
      body: { mode: 'context', target_uri: [''] },
      message: "target_uri is not supported in mode='context'",
    },
  ])('rejects $name', ({ body, message }) => {
    const error = failure(() => assertSearchModeFields(body));
    expect(error.code).toBe(KernelErrorCode.InvalidArgument);
    expect(error.message).toBe(message);
  });

  it.each([
    { name: 'plain list request', body: { query: 'plain' } },
    { name: 'context with empty target_uri', body: { mode: 'context', target_uri: '' } },
    { name: 'context with an empty target list', body: { mode: 'context', target_uri: [] } },
    {
      name: 'context with every context field',
      body: { mode: 'context', max_tokens: 64, quotas: {}, rewrite: 'auto' },
    },
  ])('accepts $name', ({ body }) => {
    expect(() => assertSearchModeFields(body)).not.toThrow();
  });

  it('lists every context-only field present, sorted', () => {
    const body = Object.fromEntries(
      ['rewrite_max_bullets', 'query_expansion', 'peer_scope', 'exclude_uris', 'limit'].map((k) => [k, null]),
    );
    expect(contextOnlyFieldsPresent(body)).toEqual([
      'exclude_uris',
      'peer_scope',
      'query_expansion',
      'rewrite_max_bullets',
    ]);
    expect(modeMismatchMessage(['a', 'b'])).toBe(
      "a, b require mode='context'; set mode='context' or drop these fields",
    );
  });
});

describe('quota and detail fields', () => {
  it.each([
    {
      name: 'unknown quota key',
      run: () => validateQuotasField({ bogus: 1 }),
      message: 'unknown quota keys: bogus; allowed: events, entities, preferences, experiences, resources, skills',
    },
    {
      name: 'memories owns no bucket',
      run: () => validateQuotasField({ memories: 1 }),
      message: 'unknown quota keys: memories; allowed: events, entities, preferences, experiences, resources, skills',
    },
    {
      name: 'several unknown keys sorted',
      run: () => validateQuotasField({ zed: 1, events: 1, alpha: 2 }),
      message: 'unknown quota keys: alpha, zed; allowed: events, entities, preferences, experiences, resources, skills',
    },
    {
      name: 'fractional quota',
      run: () => validateQuotasField({ events: 2.5 }),
      message: 'quotas.events: Input should be a valid integer',
    },
    {
      name: 'null quota value',
      run: () => validateQuotasField({ events: null }),
      message: 'quotas.events: Input should be a valid integer',
    },
    {
      name: 'unknown detail key',
      run: () => validateDetailField({ foo: 'full' }),
      message:
        'unknown detail keys: foo; allowed: events, entities, preferences, experiences, resources, skills, memories',
    },
    {
      name: 'unknown detail string',
      run: () => validateDetailField('summary'),
      message: expect.stringContaining('detail must be one of'),
    },
    {
      name: 'uri is not pinnable',
      run: () => validateDetailField({ events: 'uri' }),
      message: "detail.events: Input should be 'abstract', 'overview' or 'full'",
    },
    {
      name: 'detail of the wrong type',
      run: () => validateDetailField(3),
      message: expect.stringContaining('detail must be one of'),
    },
  ])('rejects $name', ({ run, message }) => {
    const error = failure(run);
    expect(error.code).toBe(KernelErrorCode.InvalidArgument);
    expect(error.message).toEqual(message);
  });

  it.each([
    { name: 'null quotas', run: () => validateQuotasField(null) },
    { name: 'empty quotas', run: () => validateQuotasField({}) },
    { name: 'numeric-string and negative quotas', run: () => validateQuotasField({ events: '3', skills: -1 }) },
    { name: 'memories detail map', run: () => validateDetailField({ memories: 'overview' }) },
    { name: 'auto detail', run: () => validateDetailField('auto') },
    { name: 'scalar detail', run: () => validateDetailField('full') },
  ])('accepts $name', ({ run }) => {
    expect(run).not.toThrow();
  });
});

describe('ignoredFields', () => {
  it.each([
    { name: 'level', body: { mode: 'context', level: 1 }, out: ['level'] },
    { name: 'purpose with limit', body: { purpose: 'coding', limit: 1 }, out: ['limit'] },
    { name: 'quotas with node_limit', body: { quotas: { events: 1 }, node_limit: 3 }, out: ['limit'] },
    { name: 'empty quotas still bucketed', body: { quotas: {}, limit: 2 }, out: ['limit'] },
    { name: 'flat mode limit is honoured', body: { limit: 5 }, out: [] },
    { name: 'null level is not ignored', body: { level: null, quotas: null, limit: 3 }, out: [] },
    { name: 'both, level first', body: { level: '0,1', purpose: 'chat', node_limit: 2 }, out: ['level', 'limit'] },
    { name: 'purpose without limit', body: { purpose: 'chat' }, out: [] },
  ])('$name', ({ body, out }) => {
    expect(ignoredFields(body)).toEqual(out);
  });
});

describe('parseRewrite (lax bool)', () => {
  it.each([
    { name: 'absent', value: undefined, out: false },
    { name: 'true', value: true, out: true },
    { name: 'auto', value: 'auto', out: 'auto' },
    { name: '"true"', value: 'true', out: true },
    { name: '"YES"', value: 'YES', out: true },
    { name: '"on"', value: 'on', out: true },
    { name: '"1"', value: '1', out: true },
    { name: '1', value: 1, out: true },
    { name: '"false"', value: 'false', out: false },
    { name: '"no"', value: 'no', out: false },
    { name: '"off"', value: 'Off', out: false },
    { name: '"0"', value: '0', out: false },
    { name: '0', value: 0, out: false },
  ])('$name', ({ value, out }) => {
    expect(parseRewrite(value)).toBe(out);
  });

  it.each([{ value: 'AUTO' }, { value: 'maybe' }, { value: 2 }, { value: ' true' }, { value: {} }])(
    'rejects $value',
    ({ value }) => {
      expect(failure(() => parseRewrite(value)).code).toBe(KernelErrorCode.InvalidArgument);
    },
  );
});

describe('roundHalfEven', () => {
  it.each([
    { x: 1625, out: 1625 },
    { x: 62.5, out: 62 },
    { x: 1000.5, out: 1000 },
    { x: 1001.5, out: 1002 },
    { x: 2.25, out: 2 },
    { x: 2.75, out: 3 },
    { x: -2.5, out: -2 },
    { x: -3.5, out: -4 },
  ])('round($x) = $out', ({ x, out }) => {
    expect(roundHalfEven(x)).toBe(out);
  });
});

describe('foldRecallRequest', () => {
  const DEFAULT_QUOTAS = { events: 10, entities: 10, preferences: 3, experiences: 0 };

  it('bare query', () => {
    expect(foldRecallRequest({ query: 'q' })).toEqual({
      query: 'q',
      maxTokens: 1600,
      scoreThreshold: 0.1,
      render: true,
      detail: null,
      quotas: DEFAULT_QUOTAS,
      purpose: 'coding',
      dedupTurns: 0,
      queryExpansion: 'auto',
      limit: 10,
      peerScope: 'all',
      otherPeerPenalty: null,
      rewrite: false,
      rewriteMaxBullets: 6,
      sessionId: null,
      excludeUris: [],
      aliasesUsed: [],
    });
  });

  it.each([
    { name: 'max_chars 6500 → 1625', body: { max_chars: 6500 }, maxTokens: 1625, aliases: ['max_chars'] },
    {
      name: 'all three aliases in fixed order',
      body: { render: true, min_score: 0.1, max_chars: 1600 },
      maxTokens: 400,
      aliases: ['max_chars', 'min_score', 'render'],
    },
    { name: 'max_tokens wins', body: { max_chars: 6500, max_tokens: 900 }, maxTokens: 900, aliases: ['max_chars'] },
    { name: 'floor at 64', body: { max_chars: 250 }, maxTokens: 64, aliases: ['max_chars'] },
    { name: 'half to even down', body: { max_chars: 4002 }, maxTokens: 1000, aliases: ['max_chars'] },
    { name: 'half to even up', body: { max_chars: 4006 }, maxTokens: 1002, aliases: ['max_chars'] },
    { name: 'no upper clamp', body: { max_chars: 1_000_000 }, maxTokens: 250000, aliases: ['max_chars'] },
    {
      name: 'null max_tokens is not provided',
      body: { max_tokens: null, max_chars: 800 },
      maxTokens: 200,
      aliases: ['max_chars'],
    },
  ])('$name', ({ body, maxTokens, aliases }) => {
    const folded = foldRecallRequest({ query: 'q', ...body });
    expect(folded.maxTokens).toBe(maxTokens);
    expect(folded.aliasesUsed).toEqual(aliases);
  });

  it.each([
    { name: 'score_threshold beats min_score', body: { min_score: 0.3, score_threshold: 0.5 }, out: 0.5 },
    { name: 'min_score alone', body: { min_score: 0.3 }, out: 0.3 },
    { name: 'null score_threshold falls back to min_score', body: { min_score: 0.2, score_threshold: null }, out: 0.2 },
  ])('threshold: $name', ({ body, out }) => {
    expect(foldRecallRequest({ query: 'q', ...body }).scoreThreshold).toBe(out);
  });

  it.each([
    { name: 'render false', body: { render: false }, render: false, detail: null },
    { name: 'compact pins abstract', body: { render: 'compact' }, render: true, detail: 'abstract' },
    {
      name: 'explicit detail wins over compact',
      body: { render: 'compact', detail: 'full' },
      render: true,
      detail: 'full',
    },
    { name: 'full renders without a pin', body: { render: 'full' }, render: true, detail: null },
  ])('render: $name', ({ body, render, detail }) => {
    const folded = foldRecallRequest({ query: 'q', ...body });
    expect([folded.render, folded.detail]).toEqual([render, detail]);
  });

  it.each([
    { name: 'absent → v1 defaults', body: {}, out: DEFAULT_QUOTAS },
    {
      name: 'partial map overlays',
      body: { quotas: { events: 5 } },
      out: { events: 5, entities: 10, preferences: 3, experiences: 0 },
    },
    { name: 'empty map → defaults', body: { quotas: {} }, out: DEFAULT_QUOTAS },
    {
      name: 'new bucket added after the defaults',
      body: { quotas: { resources: 2 } },
      out: { ...DEFAULT_QUOTAS, resources: 2 },
    },
    { name: 'explicit null → purpose preset', body: { quotas: null }, out: null },
  ])('quotas: $name', ({ body, out }) => {
    const folded = foldRecallRequest({ query: 'q', ...body });
    expect(folded.quotas).toEqual(out);
    if (out) expect(Object.keys(folded.quotas!)).toEqual(Object.keys(out));
  });

  it.each([
    { name: 'session without dedup_turns → 5', body: { session_id: 's1' }, out: 5 },
    { name: 'explicit 0 wins', body: { session_id: 's1', dedup_turns: 0 }, out: 0 },
    { name: 'blank session → 0', body: { session_id: '' }, out: 0 },
    { name: 'explicit value without session', body: { dedup_turns: 3 }, out: 3 },
  ])('dedup: $name', ({ body, out }) => {
    expect(foldRecallRequest({ query: 'q', ...body }).dedupTurns).toBe(out);
  });

  it('passes the remaining fields through with their defaults', () => {
    const folded = foldRecallRequest({
      query: 'q',
      purpose: 'chat',
      query_expansion: 'off',
      peer_scope: 'actor',
      rewrite: 'yes',
      rewrite_max_bullets: 3,
      exclude_uris: ['viking://resources/a'],
      other_peer_penalty: 0.2,
    });
    expect(folded).toMatchObject({
      purpose: 'chat',
      queryExpansion: 'off',
      peerScope: 'actor',
      rewrite: true,
      rewriteMaxBullets: 3,
      excludeUris: ['viking://resources/a'],
      otherPeerPenalty: 0.2,
    });
  });

  it('deprecation signals', () => {
    expect(deprecatedStats(['max_chars'])).toEqual({
      endpoint: '/api/v1/search/recall',
      successor: '/api/v1/search/search',
      successor_body: { mode: 'context' },
      aliases_used: ['max_chars'],
    });
    expect(RECALL_DEPRECATION_HEADERS).toEqual({
      Deprecation: 'true',
      Link: '</api/v1/search/search>; rel="successor-version"',
    });
  });
});

describe('exclude URIs', () => {
  it('canonicalises at the boundary and rejects invalid ones', () => {
    expect(canonicalizeExcludeUris(['viking://~/memories/a.md', 'viking://resources/x/'], 'u1')).toEqual([
      'viking://user/u1/memories/a.md',
      'viking://resources/x',
    ]);
    expect(failure(() => canonicalizeExcludeUris(['viking://user/memories/a'], 'u1')).code).toBe(
      KernelErrorCode.InvalidUri,
    );
  });

  it('keeps the first 200, trimmed and non-blank, plus cooled URIs', () => {
    const many = Array.from({ length: 205 }, (_, i) => ` viking://resources/${i} `);
    const set = excludedSet(['', '  ', ...many], ['viking://cooled']);
    expect(set.size).toBe(199);
    expect(set.has('viking://resources/0')).toBe(true);
    expect(set.has('viking://resources/198')).toBe(false);
    expect(set.has('viking://cooled')).toBe(true);
  });
});

describe('effectiveLimit', () => {
  it.each([
    { name: 'node_limit wins', limit: 10, nodeLimit: 3, out: 3 },
    { name: 'limit when node_limit is null', limit: 5, nodeLimit: null, out: 5 },
    { name: 'default 10', limit: undefined, nodeLimit: undefined, out: 10 },
  ])('$name', ({ limit, nodeLimit, out }) => {
    expect(effectiveLimit(limit, nodeLimit)).toBe(out);
  });
});

describe('isContextRequest: the one context-or-list decision of /search', () => {
  it.each([
    { name: 'mode context', body: { mode: 'context' }, out: true },
    { name: 'a context-only field, no mode', body: { max_tokens: 800 }, out: true },
    {
      name: 'a context-only field in list mode (the cross-field 400 answers)',
      body: { mode: 'list', dedup_turns: 1 },
      out: true,
    },
    {
      name: 'an unknown mode with a context-only field (the context schema answers)',
      body: { mode: 'foo', max_tokens: 800 },
      out: true,
    },
    { name: 'an unknown mode alone (the list schema answers)', body: { mode: 'foo' }, out: false },
    { name: 'plain list body', body: { query: 'q', limit: 3 }, out: false },
    { name: 'not an object', body: [1], out: false },
  ])('$name → $out', ({ body, out }) => {
    expect(isContextRequest(body)).toBe(out);
  });
});
