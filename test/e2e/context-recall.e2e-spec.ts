// docs/contract.md#recall-preset: the deprecated /recall preset — v1 folding rules, the bucketed fan-out it
// sends (read back from the `find` jobs), and its deprecation signals. Dev mode: ROOT, default/default.
import { startTestApp, TestApp } from '@app/testing';
import { JobSpy, post, RECALL, seed } from './context-support';

const RECALL_QUOTAS = { events: 10, entities: 10, preferences: 3, experiences: 0 };
const CODING = { events: 1, entities: 2, preferences: 1, experiences: 1, resources: 3, skills: 2 };

describe('/recall preset', () => {
  let app: TestApp;
  let spy: JobSpy;
  const recall = (body: Record<string, unknown>) => post(app, RECALL, body);

  beforeAll(async () => {
    app = await startTestApp();
    spy = new JobSpy(app);
    await seed(
      app,
      {},
      'viking://user/default/memories/entities/wombat.md',
      'The wombat named Quill guards the garden shed.',
    );
    await seed(
      app,
      {},
      'viking://user/default/memories/events/wombat-escape.md',
      '# Summary\nQuill the wombat escaped the garden.\n\n# 2026-03-02 ChatLog:\nwe chased the wombat for an hour',
    );
  });

  afterAll(async () => {
    await spy.close();
    await app.close();
  });

  it('{"query"} → v1 bucket quotas, coding, 1600 tokens, threshold 0.1 on every call, no experiences call, deprecation headers', async () => {
    const query = 'wombat Quill recall defaults';
    const r = await recall({ query });
    expect(r.status).toBe(200);
    expect(r.headers.get('deprecation')).toBe('true');
    expect(r.headers.get('link')).toBe('</api/v1/search/search>; rel="successor-version"');
    const { stats } = r.body.result;
    expect(stats.quotas).toEqual(RECALL_QUOTAS);
    expect(stats.purpose).toBe('coding');
    expect(stats.max_tokens).toBe(1600);
    expect(stats.score_threshold).toBe(0.1);
    expect(stats.peer_scope).toBe('all');
    expect(stats.query_expansion).toBe('off');
    expect(stats).not.toHaveProperty('ignored');
    expect(stats.deprecated).toEqual({
      endpoint: '/api/v1/search/recall',
      successor: '/api/v1/search/search',
      successor_body: { mode: 'context' },
      aliases_used: [],
    });
    expect(Object.keys(stats).slice(-5)).toEqual(['dedup', 'deprecated', 'redundant', 'weak', 'lexical_only']);
    const calls = await spy.finds(query);
    // events, entities, preferences: own target + U/peers scan each; experiences (quota 0) none.
    expect(calls).toHaveLength(6);
    for (const c of calls) expect(c.data.scoreThreshold).toBe(0.1);
    expect(calls.flatMap((c) => c.data.targets).filter((t) => t.endsWith('/experiences'))).toEqual([]);
    expect(calls.flatMap((c) => c.data.targets).sort()).toEqual([
      'viking://user/default/memories/entities',
      'viking://user/default/memories/events',
      'viking://user/default/memories/preferences',
      'viking://user/default/peers',
      'viking://user/default/peers',
      'viking://user/default/peers',
    ]);
    expect(r.body.result.entries.map((e: { uri: string }) => e.uri)).toContain(
      'viking://user/default/memories/entities/wombat.md',
    );
  });

  it('max_chars folds to max_tokens (round half even, floor 64), max_tokens wins, aliases listed in fixed order', async () => {
    const cases: [Record<string, unknown>, number, string[]][] = [
      [{ max_chars: 6500 }, 1625, ['max_chars']],
      [{ max_chars: 1600, min_score: 0.1, render: true }, 400, ['max_chars', 'min_score', 'render']],
      [{ render: 'full', min_score: 0.2, max_chars: 1600 }, 400, ['max_chars', 'min_score', 'render']],
      [{ max_chars: 6500, max_tokens: 900 }, 900, ['max_chars']],
      [{ max_chars: 250 }, 64, ['max_chars']],
      [{ max_chars: 4002 }, 1000, ['max_chars']],
      [{ max_chars: 4006 }, 1002, ['max_chars']],
      [{ max_chars: 128000 }, 32000, ['max_chars']],
      [{}, 1600, []],
    ];
    for (const [extra, maxTokens, aliases] of cases) {
      const r = await recall({ query: 'wombat Quill', ...extra });
      expect(r.status).toBe(200);
      expect([extra, r.body.result.stats.max_tokens]).toEqual([extra, maxTokens]);
      expect(r.body.result.stats.deprecated.aliases_used).toEqual(aliases);
    }
  });

  it('max_chars is bounded like max_tokens: past 128,000 characters a 400 naming it, never a planned block', async () => {
    for (const maxChars of [128001, 1_000_000_000]) {
      const r = await recall({ query: 'wombat Quill', max_chars: maxChars });
      expect([maxChars, r.status, r.body.error.code]).toEqual([maxChars, 400, 'INVALID_ARGUMENT']);
      expect(r.body.error.message).toBe(
        'Invalid request parameters: body.max_chars: Input should be less than or equal to 128000',
      );
      expect(r.body.error.details.validation_errors[0]).toMatchObject({
        loc: ['body', 'max_chars'],
        type: 'less_than_equal',
      });
    }
  });

  it('score_threshold beats min_score, which beats the 0.1 default; every call gets the result', async () => {
    const both = await recall({ query: 'wombat Quill threshold both', min_score: 0.3, score_threshold: 0.5 });
    expect(both.body.result.stats.score_threshold).toBe(0.5);
    for (const c of await spy.finds('wombat Quill threshold both')) expect(c.data.scoreThreshold).toBe(0.5);
    const alias = await recall({ query: 'wombat Quill threshold alias', min_score: 0.3 });
    expect(alias.body.result.stats.score_threshold).toBe(0.3);
    const calls = await spy.finds('wombat Quill threshold alias');
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.data.scoreThreshold).toBe(0.3);
  });

  it('render:false blanks rendered but keeps entries; "compact" pins abstract unless detail is given', async () => {
    const off = await recall({ query: 'wombat Quill', render: false });
    expect(off.status).toBe(200);
    expect(off.body.result.rendered).toBe('');
    expect(off.body.result.entries.length).toBeGreaterThan(0);
    const on = await recall({ query: 'wombat Quill' });
    expect(on.body.result.rendered).toContain('<memory uri="viking://user/default/memories/entities/wombat.md"');
    const compact = await recall({ query: 'wombat Quill', render: 'compact' });
    expect(compact.body.result.stats.detail).toBe('abstract');
    expect(compact.body.result.rendered).not.toBe('');
    const event = compact.body.result.entries.find((e: { uri: string }) => e.uri.endsWith('/wombat-escape.md'));
    expect(event.detail).toBe('abstract');
    const explicit = await recall({ query: 'wombat Quill', render: 'compact', detail: 'full' });
    expect(explicit.body.result.stats.detail).toBe('full');
    const full = await recall({ query: 'wombat Quill', render: 'full' });
    expect(full.body.result.stats.detail).toBeNull();
  });

  it('quotas overlay the v1 defaults; explicit null falls back to the coding preset', async () => {
    const five = await recall({ query: 'wombat Quill', quotas: { events: 5 } });
    expect(five.body.result.stats.quotas).toEqual({ events: 5, entities: 10, preferences: 3, experiences: 0 });
    const none = await recall({ query: 'wombat Quill', quotas: null });
    expect(none.body.result.stats.quotas).toEqual(CODING);
    expect(Object.values(none.body.result.stats.quotas as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(10);
    const empty = await recall({ query: 'wombat Quill', quotas: {} });
    expect(empty.body.result.stats.quotas).toEqual(RECALL_QUOTAS);
    const withResources = await recall({ query: 'wombat Quill', quotas: { resources: 2 } });
    expect(withResources.body.result.stats.quotas).toEqual({ ...RECALL_QUOTAS, resources: 2 });
  });

  it('a session_id defaults dedup_turns to 5; an explicit 0 wins', async () => {
    const five = await recall({ query: 'wombat Quill', session_id: 'recall-dedup-default' });
    expect(five.status).toBe(200);
    expect(five.body.result.stats.dedup).toMatchObject({ turns: 5, status: 'new', turn: 0 });
    const zero = await recall({ query: 'wombat Quill', session_id: 'recall-dedup-zero', dedup_turns: 0 });
    expect(zero.body.result.stats.dedup).toEqual({ turns: 0, status: 'off', cooled: 0, turn: null });
    const none = await recall({ query: 'wombat Quill' });
    expect(none.body.result.stats.dedup.turns).toBe(0);
  });
});
