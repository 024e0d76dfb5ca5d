// docs/contract.md#candidate-gathering: candidate gathering — bucket targets, the open-context peer scan, origin
// ranking, profile/duplicate/exclusion handling, over-fetch, retrieval failures and directory hits.
// Retrieval results come from seeded content (one distinctive word per case); the fan-out is read
// back from the `find` jobs in Redis. Dev mode: ROOT, user default, so U = viking://user/default.
import { Job } from 'bullmq';
import { FindBatchJob, FindJob, QueueName } from '@app/contracts';
import { startTestApp, storeModes, TestApp } from '@app/testing';
import { context, Entry, entriesOf, JobSpy, post, RECALL, seedMany, urisOf, withActor } from './context-support';

const U = 'viking://user/default';
/** Files only (level 2): directory sidecars summarise their children and would match the same words. */
const FILES = { op: 'must', field: 'level', conds: [2] };
/** Files matching a query word score ≥ 0.6 (lexical weight); vector-only neighbours stay far below. */
const STRICT = { filter: FILES, score_threshold: 0.25 };
const CODING = { events: 1, entities: 2, preferences: 1, experiences: 1, resources: 3, skills: 2 };
const ORIGIN_ORDER = ['actor_peer', 'self', 'other_peer'];
const ACTOR = withActor({}, 'current');

/** Makes a held `find` job fail inside the real retriever (its payload guard refuses it). */
/** A context request's find calls travel in one batch job; these tamper with chosen calls inside it. */
const batchOf = (query: string) => (d: { calls?: FindJob[] }) => !!d.calls?.some((c) => c.query === query);
const editCalls = (job: Job, edit: (call: FindJob, i: number) => FindJob) =>
  job.updateData({ ...job.data, calls: (job.data as FindBatchJob).calls.map(edit) });
const broken = (call: FindJob): FindJob => ({ ...call, targets: ['not-a-viking-uri'] });

describe.each(storeModes())('context gathering (store: %s)', (store) => {
  let app: TestApp;
  let spy: JobSpy;
  const targetsOf = async (query: string) => (await spy.finds(query)).flatMap((c) => c.data.targets);

  beforeAll(async () => {
    app = await startTestApp({ store });
    spy = new JobSpy(app);
    await seedMany(
      app,
      {},
      {
        // 23
        [`${U}/memories/events/marmoset-visit.md`]:
          '# Summary\nThe marmoset visit went well.\n\n# 2026-05-01 ChatLog:\nmarmoset chatter',
        [`${U}/memories/entities/marmoset.md`]: 'Marmoset Kiki is the lab mascot.',
        [`${U}/memories/preferences/marmoset-food.md`]: 'Prefers feeding the marmoset mango.',
        [`${U}/memories/experiences/marmoset-cage.md`]: 'Learned to lock the marmoset cage twice.',
        ['viking://resources/marmoset-guide.md']: '# Marmoset guide\n\nHow to care for a marmoset.',
        [`${U}/peers/current/resources/marmoset-notes.md`]:
          '# Marmoset notes\n\nThe current peer keeps marmoset notes.',
        [`${U}/skills/marmoset-care.md`]: '# Marmoset care\n\nA skill for marmoset care.',
        // 24, 25
        [`${U}/peers/current/memories/events/ocelot-actor.md`]:
          '# Summary\nOcelot sighting by the current peer at the river.',
        [`${U}/memories/events/ocelot-self.md`]: '# Summary\nI saw an ocelot once.',
        [`${U}/peers/other/memories/events/ocelot-other.md`]:
          '# Summary\nOcelot sighting reported by another peer near the river.',
        // 26
        [`${U}/peers/current/resources/ibis-notes.md`]: '# Ibis notes\n\nThe ibis nests by the lake.',
        // 27
        [`${U}/memories/profile.md`]: 'Narwhal enthusiast; profile of the user.',
        [`${U}/peers/other/memories/events/narwhal-trip.md`]: '# Summary\nThe narwhal trip was cancelled.',
        // 28
        ['viking://resources/backup/memories/events/quagga-log.md']: 'quagga backup log line',
        [`${U}/memories/trajectories/quagga-t.md`]: 'quagga trajectory memory',
        [`${U}/memories/skills/quagga-s.md`]: 'quagga skill usage memory',
        [`${U}/skills/quagga-real.md`]: '# Quagga\n\nquagga real skill',
        // 29
        [`${U}/memories/entities/tapir-a.md`]: 'Tapir Alpha lives in the zoo.',
        [`${U}/memories/entities/tapir-b.md`]: 'Tapir Beta lives in the forest.',
        // 32
        [`${U}/memories/events/gecko-day.md`]: '# Summary\nGecko day at the terrarium.',
        [`${U}/memories/entities/gecko.md`]: 'Gecko Zed is green.',
        // 33
        [`${U}/memories/entities/lemurcrew/lemur-a.md`]: 'Member A of the troop.',
        [`${U}/memories/entities/lemurcrew/lemur-b.md`]: 'Member B of the troop.',
      },
    );
  });

  afterAll(async () => {
    await spy.close();
    await app.close();
  });

  it('quotas {events, skills} with peer_scope actor → events and both skills roots searched, no peers scan', async () => {
    const query = 'marmoset case twenty two';
    const r = await context(app, { query, quotas: { events: 2, skills: 1 }, peer_scope: 'actor' });
    expect(r.status).toBe(200);
    const targets = await targetsOf(query);
    expect(targets.filter((t) => t.endsWith('/memories/events'))).toHaveLength(1);
    expect(targets).toEqual(expect.arrayContaining([`${U}/skills`, 'viking://agent/skills']));
    expect(targets.filter((t) => t.endsWith('/peers'))).toEqual([]);
    expect(r.body.result.stats.searched).toEqual({ events: expect.any(Number), skills: expect.any(Number) });
    expect(r.body.result.stats.quotas).toEqual({ events: 2, skills: 1 });
  });

  it('purpose coding with an actor → every preset bucket searched, limit ignored, not truncated to 1', async () => {
    const query = 'marmoset';
    const r = await context(app, { query, purpose: 'coding', limit: 1, peer_scope: 'actor', ...STRICT }, ACTOR);
    expect(r.status).toBe(200);
    const targets = await targetsOf(query);
    for (const cat of ['events', 'entities', 'preferences', 'experiences']) {
      expect(targets).toContain(`${U}/memories/${cat}`);
      expect(targets).toContain(`${U}/peers/current/memories/${cat}`);
    }
    expect(targets).toEqual(
      expect.arrayContaining(['viking://resources', `${U}/peers/current/resources`, `${U}/skills`]),
    );
    expect(targets.filter((t) => t.endsWith('/peers'))).toEqual([]);
    const { stats } = r.body.result;
    expect(stats.quotas).toEqual(CODING);
    expect(stats.ignored).toEqual(['limit']);
    expect(stats.purpose).toBe('coding');
    const entries = entriesOf(r);
    expect(entries.length).toBeGreaterThanOrEqual(7);
    expect(entries.length).toBeLessThanOrEqual(10);
    expect(Object.fromEntries(entries.map((e) => [e.uri, e.category]))).toMatchObject({
      [`${U}/memories/events/marmoset-visit.md`]: 'events',
      [`${U}/memories/entities/marmoset.md`]: 'entities',
      [`${U}/memories/preferences/marmoset-food.md`]: 'preferences',
      [`${U}/memories/experiences/marmoset-cage.md`]: 'experiences',
      'viking://resources/marmoset-guide.md': 'resources',
      [`${U}/peers/current/resources/marmoset-notes.md`]: 'resources',
      [`${U}/skills/marmoset-care.md`]: 'skills',
    });
  });

  describe('/recall with an actor, events only', () => {
    const OCELOT = {
      actor: `${U}/peers/current/memories/events/ocelot-actor.md`,
      self: `${U}/memories/events/ocelot-self.md`,
      other: `${U}/peers/other/memories/events/ocelot-other.md`,
    };
    const eventsOnly = { entities: 0, preferences: 0 };
    const rank = (e: Entry, penalty: number) => e.score - (e.origin === 'other_peer' ? penalty : 0);
    // A directory holding one of the served files ranks after the files (docs/context.md, "Directories
    // after their files"); the rest follow the contract's penalised score, then origin.
    const summarises = (e: Entry, all: Entry[]) =>
      all.some((f) => f.uri.endsWith('.md') && f.uri.startsWith(`${e.uri}/`));
    const expectRankOrder = (entries: Entry[], penalty: number) => {
      const late = (e: Entry) => (summarises(e, entries) ? 1 : 0);
      const sorted = [...entries].sort(
        (a, b) =>
          late(a) - late(b) ||
          rank(b, penalty) - rank(a, penalty) ||
          ORIGIN_ORDER.indexOf(a.origin!) - ORIGIN_ORDER.indexOf(b.origin!),
      );
      expect(entries.some((e) => late(e) === 1)).toBe(true);
      expect(entries.map((e) => e.uri)).toEqual(sorted.map((e) => e.uri));
    };
    const ocelotOrder = (entries: Entry[]) =>
      entries.map((e) => e.uri).filter((u) => Object.values(OCELOT).includes(u));

    it('origins come from the URI, the order follows the penalised score, the peers scan runs without the actor', async () => {
      const query = 'ocelot sighting river';
      const r = await post(app, RECALL, { query, quotas: eventsOnly }, ACTOR);
      expect(r.status).toBe(200);
      const entries = entriesOf(r);
      const byUri = Object.fromEntries(entries.map((e) => [e.uri, e]));
      expect([byUri[OCELOT.actor]?.origin, byUri[OCELOT.self]?.origin, byUri[OCELOT.other]?.origin]).toEqual([
        'actor_peer',
        'self',
        'other_peer',
      ]);
      expect(entries.every((e) => e.category === 'events')).toBe(true);
      expectRankOrder(entries, 0.1);
      expect(r.body.result.stats.origins.other_peer).toBeGreaterThanOrEqual(1);
      const scans = (await spy.finds(query)).filter((c) => c.data.targets.includes(`${U}/peers`));
      expect(scans).toHaveLength(1);
      expect(scans[0].data.identity.actorPeerId).toBeNull();
      const own = (await spy.finds(query)).filter((c) => !c.data.targets.includes(`${U}/peers`));
      expect(own.every((c) => c.data.identity.actorPeerId === 'current')).toBe(true);
      // The other peer's body is invisible to the actor view: a body-backed tier proves the open read.
      expect(['overview', 'full']).toContain(byUri[OCELOT.other].detail);
      expect(byUri[OCELOT.other].text).toContain('Ocelot sighting reported by another peer near the river.');
      expect(byUri[OCELOT.other].text.startsWith('# Summary')).toBe(byUri[OCELOT.other].detail === 'full');
    });

    it('the penalty decides where an other-peer hit that out-scores self lands', async () => {
      const query = 'ocelot sighting river';
      const raw = entriesOf(await post(app, RECALL, { query, quotas: eventsOnly, other_peer_penalty: 0 }, ACTOR));
      expectRankOrder(raw, 0);
      const score = (uri: string) => raw.find((e) => e.uri === uri)!.score;
      const gap = score(OCELOT.other) - score(OCELOT.self);
      expect(gap).toBeGreaterThan(0); // seeded so: the other peer's note matches every query word
      const below = entriesOf(
        await post(app, RECALL, { query, quotas: eventsOnly, other_peer_penalty: gap + 0.001 }, ACTOR),
      );
      expectRankOrder(below, gap + 0.001);
      expect(ocelotOrder(below).indexOf(OCELOT.other)).toBeGreaterThan(ocelotOrder(below).indexOf(OCELOT.self));
      const above = entriesOf(
        await post(app, RECALL, { query, quotas: eventsOnly, other_peer_penalty: gap - 0.001 }, ACTOR),
      );
      expect(ocelotOrder(above).indexOf(OCELOT.other)).toBeLessThan(ocelotOrder(above).indexOf(OCELOT.self));
      const last = entriesOf(await post(app, RECALL, { query, quotas: eventsOnly, other_peer_penalty: 1 }, ACTOR));
      // Among files and lone directories (summarising directories come last whatever their origin).
      const ranked = last.filter((e) => !summarises(e, last));
      const firstOther = ranked.findIndex((e) => e.origin === 'other_peer');
      expect(firstOther).toBeGreaterThan(0);
      expect(ranked.slice(firstOther).every((e) => e.origin === 'other_peer')).toBe(true);
    });
  });

  it('the same with peer_scope "actor" → no call on U/peers, no other-peer entry', async () => {
    const query = 'ocelot sighting river actor scope';
    const r = await post(app, RECALL, { query, quotas: { entities: 0, preferences: 0 }, peer_scope: 'actor' }, ACTOR);
    expect(r.status).toBe(200);
    const targets = await targetsOf(query);
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((t) => t.endsWith('/peers'))).toEqual([]);
    expect(entriesOf(r).map((e) => e.origin)).not.toContain('other_peer');
    expect(urisOf(r)).toEqual(
      expect.arrayContaining([
        `${U}/peers/current/memories/events/ocelot-actor.md`,
        `${U}/memories/events/ocelot-self.md`,
      ]),
    );
  });

  it('a resources bucket with peer_scope "all" searches the actor\'s resources, never the U/peers scan', async () => {
    const query = 'ibis';
    const r = await context(app, { query, quotas: { resources: 2 }, peer_scope: 'all', ...STRICT }, ACTOR);
    expect(r.status).toBe(200);
    const targets = await targetsOf(query);
    expect(targets).toContain(`${U}/peers/current/resources`);
    expect(targets).not.toContain(`${U}/peers`);
    const hit = entriesOf(r).find((e) => e.uri === `${U}/peers/current/resources/ibis-notes.md`);
    expect(hit).toMatchObject({ category: 'resources', origin: 'actor_peer' });
  });

  it('profile.md is never a candidate and a URI found twice is one entry', async () => {
    const query = 'narwhal';
    const r = await context(app, { query, ...STRICT });
    expect(r.status).toBe(200);
    const calls = await spy.finds(query);
    const found = calls.flatMap((c) => c.result!.memories.map((h) => h.uri));
    expect(found).toContain(`${U}/memories/profile.md`);
    expect(found.filter((u) => u === `${U}/peers/other/memories/events/narwhal-trip.md`)).toHaveLength(2);
    expect(urisOf(r)).toEqual([`${U}/peers/other/memories/events/narwhal-trip.md`]);
    expect(r.body.result.stats).toMatchObject({ searched: { all: 2 }, candidates: 1, excluded: 0, returned: 1 });
  });

  it("flat mode derives a memory list hit's category from the URI; the skills list wins for skills", async () => {
    const query = 'quagga';
    const r = await context(app, { query, ...STRICT });
    expect(r.status).toBe(200);
    const categories = Object.fromEntries(entriesOf(r).map((e) => [e.uri, e.category]));
    expect(categories).toMatchObject({
      [`${U}/memories/trajectories/quagga-t.md`]: 'memories',
      [`${U}/memories/skills/quagga-s.md`]: 'memories',
      [`${U}/skills/quagga-real.md`]: 'skills',
    });
    const [own] = (await spy.finds(query)).filter((c) => c.data.targets.length === 0);
    expect(own.result!.skills.map((h) => h.uri)).toEqual([`${U}/skills/quagga-real.md`]);
    expect(own.result!.memories.map((h) => h.uri)).toEqual(
      expect.arrayContaining([`${U}/memories/skills/quagga-s.md`, `${U}/memories/trajectories/quagga-t.md`]),
    );
  });

  it('a viking://resources file whose path holds /memories/events/ comes back in the resources list, as a resource', async () => {
    const query = 'quagga';
    const r = await context(app, { query, ...STRICT });
    const [own] = (await spy.finds(query)).filter((c) => c.data.targets.length === 0);
    expect(own.result!.resources.map((h) => h.uri)).toContain(
      'viking://resources/backup/memories/events/quagga-log.md',
    );
    expect(
      entriesOf(r).find((e) => e.uri === 'viking://resources/backup/memories/events/quagga-log.md')?.category,
    ).toBe('resources');
  });

  it('an excluded URI (given with ~) is dropped and counted', async () => {
    const both = await context(app, { query: 'tapir', ...STRICT });
    expect(urisOf(both).sort()).toEqual([`${U}/memories/entities/tapir-a.md`, `${U}/memories/entities/tapir-b.md`]);
    const r = await context(app, {
      query: 'tapir',
      ...STRICT,
      exclude_uris: ['viking://~/memories/entities/tapir-a.md'],
    });
    expect(urisOf(r)).toEqual([`${U}/memories/entities/tapir-b.md`]);
    expect(r.body.result.stats.excluded).toBe(1);
    expect(r.body.result.stats.searched).toEqual({ all: 2 });
    expect(r.body.result.stats.candidates).toBe(1);
  });

  it('three exclusions over-fetch a quota of 4 to 7 on every call', async () => {
    const query = 'gecko over fetch';
    const exclude = [`${U}/memories/events/x1.md`, `${U}/memories/events/x2.md`, `${U}/memories/events/x3.md`];
    const r = await context(app, { query, quotas: { events: 4 }, peer_scope: 'actor', exclude_uris: exclude }, ACTOR);
    expect(r.status).toBe(200);
    const calls = await spy.finds(query);
    expect(calls.map((c) => c.data.targets[0]).sort()).toEqual([
      `${U}/memories/events`,
      `${U}/peers/current/memories/events`,
    ]);
    expect(calls.map((c) => c.data.limit)).toEqual([7, 7]);
    const scanned = 'gecko over fetch with scan';
    await context(app, { query: scanned, quotas: { events: 2 }, exclude_uris: exclude });
    expect((await spy.finds(scanned)).map((c) => [c.data.targets[0], c.data.limit]).sort()).toEqual([
      [`${U}/memories/events`, 5],
      [`${U}/peers`, 11],
    ]);
  });

  it('every retrieval call fails → 200 with no entries and at most five errors of at most 200 chars', async () => {
    const query = 'marmoset every call fails';
    const r = await spy.holding(
      QueueName.Find,
      1,
      batchOf(query),
      () => context(app, { query, purpose: 'coding' }),
      async ([job]) => {
        expect((job.data as FindBatchJob).calls).toHaveLength(12);
        await editCalls(job, broken);
      },
    );
    expect(r.status).toBe(200);
    expect(r.body.result.entries).toEqual([]);
    expect(r.body.result.rendered).toBe('');
    const errors: string[] = r.body.result.stats.retrieval_errors;
    expect(errors).toHaveLength(5);
    for (const e of errors) {
      expect([...e].length).toBeLessThanOrEqual(200);
      expect(e).toMatch(/^\w+: .*malformed find job payload/);
    }
    // Truncation to 200 characters itself is covered by formatRetrievalError's unit spec.
    expect(Object.keys(r.body.result.stats).indexOf('retrieval_errors')).toBe(
      Object.keys(r.body.result.stats).indexOf('quotas') + 1,
    );
    expect(r.body.result.stats.searched).toEqual({
      events: 0,
      entities: 0,
      preferences: 0,
      experiences: 0,
      resources: 0,
      skills: 0,
    });
  });

  it('one failing scope leaves the others served, with its error reported', async () => {
    const query = 'gecko';
    const r = await spy.holding(
      QueueName.Find,
      1,
      batchOf(query),
      () => context(app, { query, quotas: { events: 2, entities: 2 }, peer_scope: 'actor', ...STRICT }),
      async ([job]) => {
        const calls = (job.data as FindBatchJob).calls;
        expect(calls.filter((c) => c.targets[0] === `${U}/memories/entities`)).toHaveLength(1);
        await editCalls(job, (c) => (c.targets[0] === `${U}/memories/entities` ? broken(c) : c));
      },
    );
    expect(r.status).toBe(200);
    expect(entriesOf(r).map((e) => [e.uri, e.category])).toEqual([[`${U}/memories/events/gecko-day.md`, 'events']]);
    expect(r.body.result.stats.searched).toEqual({ events: 1, entities: 0 });
    expect(r.body.result.stats.retrieval_errors).toHaveLength(1);
    expect(r.body.result.stats.retrieval_errors[0]).toContain('malformed find job payload');
    // Without the failure the entity is found too: the failure, not the data, removed it.
    const healthy = await context(app, { query, quotas: { events: 2, entities: 2 }, peer_scope: 'actor', ...STRICT });
    expect(urisOf(healthy).sort()).toEqual([`${U}/memories/entities/gecko.md`, `${U}/memories/events/gecko-day.md`]);
    expect(healthy.body.result.stats).not.toHaveProperty('retrieval_errors');
  });

  it('a retrieval call that raises an invalid argument fails the whole request with 400, not a stats line', async () => {
    const query = 'gecko invalid argument';
    const r = await spy.holding(
      QueueName.Find,
      1,
      batchOf(query),
      () => context(app, { query, quotas: { events: 2, entities: 2 }, peer_scope: 'actor', ...STRICT }),
      async ([job]) => {
        // The store checks the filter again, whatever reaches it, and refuses a bad regex as INVALID_ARGUMENT.
        await editCalls(job, (c, i) => (i === 0 ? { ...c, filter: { op: 'regex', field: 'uri', pattern: '(' } } : c));
      },
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 'error', result: null, error: { code: 'INVALID_ARGUMENT' } });
    expect(r.body.error.message).toMatch(/^filter\.pattern has an unclosed \(/);
  });

  it('a directory hit is served as the directory URI at overview, with its sidecar body', async () => {
    const query = 'lemurcrew';
    const dir = `${U}/memories/entities/lemurcrew`;
    const r = await context(app, { query, quotas: { entities: 3 } });
    expect(r.status).toBe(200);
    const hits = (await spy.finds(query)).flatMap((c) => c.result!.memories.map((h) => h.uri));
    expect(hits.some((u) => u === `${dir}/.abstract.md` || u === `${dir}/.overview.md`)).toBe(true);
    const overview = await app.request('GET', `/api/v1/content/overview?uri=${encodeURIComponent(dir)}`);
    expect(overview.body.result).toContain('lemur-a.md');
    // Issue 14: the listing only repeats its two children, which are served themselves → withdrawn as
    // redundant (docs/context.md, "Redundancy"); so is it under its parent's listing, which quotes both.
    // Served alone, it is the directory URI at overview.
    const served = entriesOf(r).map((e) => e.uri);
    if (served.includes(`${dir}/lemur-a.md`) && served.includes(`${dir}/lemur-b.md`)) {
      expect(served).not.toContain(dir);
      expect(r.body.result.stats.redundant).toBeGreaterThanOrEqual(1);
    }
    const alone = await context(app, {
      query,
      quotas: { entities: 3 },
      exclude_uris: [`${dir}/lemur-a.md`, `${dir}/lemur-b.md`, `${U}/memories/entities`],
    });
    const entry = entriesOf(alone).find((e) => e.uri === dir);
    expect(entry).toMatchObject({
      uri: dir,
      category: 'entities',
      detail: 'overview',
      text: overview.body.result,
      origin: 'self',
    });
  });
});
