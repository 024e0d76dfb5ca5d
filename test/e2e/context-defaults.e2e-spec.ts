// docs/contract.md#context-only-fields, #flat-mode: what a bare context request resolves to, and the flat-mode fan-out
// it
// sends to the retriever (read back from the `find` jobs in Redis). Dev mode: ROOT, default/default.
import { startTestApp, TestApp } from '@app/testing';
import { context, devAs, JobSpy, seed, seedMany, STATS_KEYS, withActor } from './context-support';

const DEFAULT_PENALTIES = {
  events: 0.1,
  entities: 0.1,
  preferences: 0.02,
  experiences: 0.02,
  resources: 0.02,
  skills: 0.02,
  memories: 0.1,
};

describe('context defaults', () => {
  let app: TestApp;
  let spy: JobSpy;

  beforeAll(async () => {
    app = await startTestApp();
    spy = new JobSpy(app);
    await seed(
      app,
      {},
      'viking://user/default/memories/entities/kestrel.md',
      'A kestrel called Pim nests on the clock tower.',
    );
    await seed(
      app,
      {},
      'viking://user/default/peers/current/memories/entities/kestrel.md',
      'The current peer feeds the kestrel on Sundays.',
    );
  });

  afterAll(async () => {
    await spy.close();
    await app.close();
  });

  it('nothing retrieved → empty block and every default in stats, keys in stats order', async () => {
    const r = await context(app, { query: 'anything at all' }, devAs('nothing-here', 'nobody'));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['status', 'result']);
    expect(Object.keys(r.body.result)).toEqual(['entries', 'rendered', 'digest', 'stats']);
    const { entries, rendered, digest, stats } = r.body.result;
    expect(entries).toEqual([]);
    expect(rendered).toBe('');
    expect(digest).toBe('');
    expect(Object.keys(stats)).toEqual(
      STATS_KEYS.filter((k) => !['retrieval_errors', 'ignored', 'deprecated'].includes(k)),
    );
    expect(stats).toEqual({
      searched: { all: 0 },
      candidates: 0,
      excluded: 0,
      origins: { actor_peer: 0, self: 0, other_peer: 0 },
      peer_scope: 'all',
      quotas: null,
      max_tokens: 1600,
      used_tokens: 0,
      per_entry_cap: 3200,
      returned: 0,
      dropped: 0,
      deduped: 0,
      detail: null,
      tier_counts: {},
      fill: { floor_tokens: 0, overview_upgrades: 0, full_upgrades: 0, spare_upgrades: 0 },
      purpose: null,
      query_expansion: 'off',
      planned_queries: ['anything at all'],
      score_threshold: null,
      other_peer_penalties: DEFAULT_PENALTIES,
      rewrite: 'off',
      rewrite_usage: null,
      dedup: { turns: 0, status: 'off', cooled: 0, turn: null },
      redundant: 0,
      weak: 0,
      lexical_only: 0,
    });
  });

  // Muninn scales the default flat limit with the budget (docs/context.md, "Default candidate count"):
  // 1600 tokens → 40 candidates (the contract's 10), so the calls ask for 40 and 160 (the peers scan looks 4 times deeper).
  it('flat default fans out one call (limit 40 at 1600 tokens, default targets) plus an open-context U/peers scan (limit 160)', async () => {
    const query = 'kestrel clock tower default fanout';
    const r = await context(app, { query });
    expect(r.status).toBe(200);
    const calls = await spy.finds(query);
    expect(calls).toHaveLength(2);
    const own = calls.find((c) => !c.data.targets.includes('viking://user/default/peers'))!;
    const scan = calls.find((c) => c.data.targets.includes('viking://user/default/peers'))!;
    // Dev-mode ROOT: the default targets are "no restriction" (docs/contract.md#default-targets), i.e. target_uri "".
    expect(own.data).toMatchObject({ targets: [], limit: 40, scoreThreshold: null, filter: null, levels: null });
    expect(scan.data).toMatchObject({ targets: ['viking://user/default/peers'], limit: 160, filter: null });
    // An explicit limit is the contract's ceiling again.
    const q2 = `${query} explicit`;
    await context(app, { query: q2, limit: 10 });
    const explicit = (await spy.finds(q2)).find((c) => !c.data.targets.includes('viking://user/default/peers'))!;
    expect(explicit.data.limit).toBe(10);
    expect(scan.data.identity.actorPeerId).toBeNull();
    expect(r.body.result.stats.searched).toEqual({ all: expect.any(Number) });
    expect(r.body.result.entries.map((e: { uri: string }) => e.uri)).toContain(
      'viking://user/default/memories/entities/kestrel.md',
    );
  });

  it('flat mode with an actor: the own call keeps the actor view, the peers scan runs without it', async () => {
    const query = 'kestrel clock tower actor fanout';
    const r = await context(app, { query }, withActor({}, 'current'));
    expect(r.status).toBe(200);
    const calls = await spy.finds(query);
    expect(calls).toHaveLength(2);
    const scan = calls.find((c) => c.data.targets.includes('viking://user/default/peers'))!;
    const own = calls.find((c) => c !== scan)!;
    expect(own.data.identity.actorPeerId).toBe('current');
    expect(own.data.limit).toBe(40); // budget-scaled default at 1600 tokens
    expect(scan.data.identity.actorPeerId).toBeNull();
    expect(scan.data.limit).toBe(160);
    const origins = Object.fromEntries(
      r.body.result.entries.map((e: { uri: string; origin: string }) => [e.uri, e.origin]),
    );
    expect(origins['viking://user/default/peers/current/memories/entities/kestrel.md']).toBe('actor_peer');
    expect(origins['viking://user/default/memories/entities/kestrel.md']).toBe('self');
  });

  // A block of one-line facts: each costs ~40 tokens as an entry, so the old default (one candidate per
  // 64 tokens, 25 at 1600) served 25 of them and left a third of the budget empty.
  it('a bare request over many small memories fills its budget past the old 25-candidate default', async () => {
    const as = devAs('fill-acct', 'fill-user');
    const files: Record<string, string> = {};
    for (let i = 1; i <= 60; i++) {
      files[`viking://user/fill-user/memories/events/heron-${String(i).padStart(2, '0')}.md`] =
        `Heron sighting ${i}: a grey heron fished at the mill pond on day ${i}.`;
    }
    await seedMany(app, as, files);
    const r = await context(app, { query: 'grey heron mill pond sighting' }, as);
    expect(r.status).toBe(200);
    const { entries, stats } = r.body.result;
    expect(stats.candidates).toBeGreaterThan(25);
    expect(entries.length).toBeGreaterThan(25);
    expect(stats.used_tokens).toBeLessThanOrEqual(1600);
    expect(stats.used_tokens).toBeGreaterThan(1600 * 0.9);
  });
});
