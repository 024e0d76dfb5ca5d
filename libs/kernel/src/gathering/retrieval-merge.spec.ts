import { runRetrieval } from '../testing/retrieval-scenario';
import { Identity } from '../identity/identity';
import { FindHit } from './find-hit';
import { resolveQuotas, RECALL_DEFAULT_QUOTAS } from './quotas';

const tester: Identity = { accountId: 'acme', userId: 'test_user', role: 'user', actorPeerId: 'current' };
const plain: Identity = { ...tester, actorPeerId: null };
const U = 'viking://user/test_user';

const hit = (uri: string, score: number, abstract = `abs ${uri}`): FindHit => ({ uri, score, abstract });

describe('merging retrieval results', () => {
  it('actor, self and other-peer hits rank by penalised score and origin', () => {
    const merged = runRetrieval({
      identity: tester,
      quotas: { ...RECALL_DEFAULT_QUOTAS },
      find: (call) => {
        if (call.openContext)
          return {
            memories: [
              hit(`${U}/peers/other/memories/events/o.md`, 0.89),
              hit(`${U}/peers/current/memories/events/dup.md`, 0.99),
            ],
          };
        if (call.targetUri === `${U}/memories/events`) return { memories: [hit(`${U}/memories/events/s.md`, 0.8)] };
        if (call.targetUri === `${U}/peers/current/memories/events`)
          return { memories: [hit(`${U}/peers/current/memories/events/a.md`, 0.91)] };
        return {};
      },
    });
    expect(merged.candidates.map((c) => [c.origin, c.score, c.rankedScore])).toEqual([
      ['actor_peer', 0.91, 0.91],
      ['self', 0.8, 0.8],
      ['other_peer', 0.89, 0.89 - 0.1],
    ]);
    expect(merged.calls.filter((c) => c.targetUri === `${U}/peers`).every((c) => c.openContext)).toBe(true);
    expect(merged.searched).toEqual({ events: 3, entities: 0, preferences: 0 });
  });

  it('an actor resource hit is actor_peer', () => {
    const actorUri = `${U}/peers/current/resources/actor-faq.md`;
    const merged = runRetrieval({
      identity: tester,
      quotas: { resources: 2 },
      find: (call) => (call.targetUri.endsWith('/peers/current/resources') ? { resources: [hit(actorUri, 0.91)] } : {}),
    });
    expect(merged.candidates.map((c) => [c.baseUri, c.origin, c.category])).toEqual([
      [actorUri, 'actor_peer', 'resources'],
    ]);
  });

  it('profile.md is never a candidate and duplicate URIs collapse', () => {
    const event = `${U}/memories/events/e.md`;
    const merged = runRetrieval({
      identity: plain,
      quotas: { events: 5 },
      peerScope: 'actor',
      find: () => ({ memories: [hit(`${U}/memories/profile.md`, 0.99), hit(event, 0.5), hit(event, 0.7)] }),
    });
    expect(merged.candidates.map((c) => [c.baseUri, c.score])).toEqual([[event, 0.7]]);
    expect(merged.searched).toEqual({ events: 2 });
  });

  it('flat mode keeps the owning list for categories', () => {
    const merged = runRetrieval({
      identity: plain,
      peerScope: 'actor',
      find: () => ({
        resources: [hit('viking://resources/backup/memories/events/log.md', 0.9)],
        memories: [hit(`${U}/memories/trajectories/t.md`, 0.8), hit(`${U}/memories/skills/s.md`, 0.7)],
        skills: [hit(`${U}/skills/real.md`, 0.6)],
      }),
    });
    expect(merged.candidates.map((c) => c.category)).toEqual(['resources', 'memories', 'memories', 'skills']);
    expect(merged.searched).toEqual({ all: 4 });
  });

  it('flat mode: first owning list wins, best score kept, peer scan keeps only other peers, cut to limit', () => {
    const shared = 'viking://resources/backup/memories/events/log.md';
    const merged = runRetrieval({
      identity: tester,
      limit: 2,
      find: (call) =>
        call.openContext
          ? {
              memories: [
                hit(`${U}/peers/bob/memories/events/b.md`, 0.95),
                hit(`${U}/peers/current/memories/events/c.md`, 0.99),
              ],
              resources: [hit('viking://resources/x', 1)],
            }
          : { memories: [hit(shared, 0.4)], resources: [hit(shared, 0.6), hit(`${U}/memories/events/e.md`, 0.5)] },
    });
    expect(merged.searched).toEqual({ all: 3 });
    expect(merged.candidates.map((c) => [c.baseUri, c.category, c.score])).toEqual([
      [`${U}/peers/bob/memories/events/b.md`, 'events', 0.95],
      [shared, 'events', 0.6],
    ]);
  });

  it('a directory with a file of its own among the hits ranks after every file, and falls out of the cut first', () => {
    const dir = (path: string, score: number): FindHit => ({
      uri: `${U}/memories/${path}/.overview.md`,
      score,
      abstract: '',
    });
    const merged = runRetrieval({
      identity: plain,
      peerScope: 'actor',
      limit: 4,
      find: () => ({
        memories: [
          dir('events/2023/05/25', 0.9),
          dir('events/2023/05', 0.85),
          dir('entities', 0.8),
          hit(`${U}/memories/events/2023/05/25/p1.md`, 0.6),
          hit(`${U}/memories/events/2023/05/25/p2.md`, 0.5),
          hit(`${U}/memories/events/2023/050.md`, 0.4),
        ],
      }),
    });
    // `entities` holds no hit: it keeps its place. `2023/05/25` and `2023/05` hold p1 and p2 (not
    // `2023/050.md`, a sibling whose name only starts alike), so they go last and the cut takes one.
    expect(merged.candidates.map((c) => [c.baseUri.slice(U.length + 10), c.score, c.rankedScore])).toEqual([
      ['entities', 0.8, 0.8],
      ['events/2023/05/25/p1.md', 0.6, 0.6],
      ['events/2023/05/25/p2.md', 0.5, 0.5],
      ['events/2023/050.md', 0.4, 0.4],
    ]);
    const wider = runRetrieval({
      identity: plain,
      peerScope: 'actor',
      limit: 10,
      find: () => ({
        memories: [
          dir('events/2023/05', 0.85),
          dir('events/2023/05/25', 0.9),
          hit(`${U}/memories/events/2023/05/25/p1.md`, 0.6),
        ],
      }),
    });
    expect(wider.candidates.map((c) => c.baseUri.slice(U.length + 10))).toEqual([
      'events/2023/05/25/p1.md',
      'events/2023/05/25',
      'events/2023/05',
    ]);
  });

  it('excluded URIs are dropped and counted', () => {
    const merged = runRetrieval({
      identity: plain,
      peerScope: 'actor',
      excluded: ['viking://resources/a.md'],
      find: () => ({ resources: [hit('viking://resources/a.md', 0.9), hit('viking://resources/b.md', 0.8)] }),
    });
    expect(merged.candidates.map((c) => c.baseUri)).toEqual(['viking://resources/b.md']);
    expect(merged.excluded).toBe(1);
    expect(merged.searched).toEqual({ all: 2 });
  });

  it('a directory is excluded by its de-suffixed URI too', () => {
    const merged = runRetrieval({
      identity: plain,
      quotas: { entities: 2 },
      peerScope: 'actor',
      excluded: [`${U}/memories/entities`],
      find: () => ({ memories: [{ uri: `${U}/memories/entities/.abstract.md`, score: 0.4, level: 0, abstract: '' }] }),
    });
    expect(merged.candidates).toEqual([]);
    expect(merged.excluded).toBe(1);
  });

  it('every call failing yields no candidates and capped error strings', () => {
    const merged = runRetrieval({
      identity: tester,
      quotas: resolveQuotas(null, 'coding'),
      find: () => Object.assign(new Error('embedder down '.repeat(30)), { name: 'RuntimeError' }),
    });
    expect(merged.candidates).toEqual([]);
    expect(merged.retrievalErrors.length).toBeGreaterThan(5);
    expect(merged.retrievalErrors.every((e) => e.startsWith('RuntimeError: embedder down') && e.length === 200)).toBe(
      true,
    );
  });

  it('a failing bucket reports 0 searched while the other still serves', () => {
    const merged = runRetrieval({
      identity: plain,
      quotas: { events: 2, entities: 2 },
      peerScope: 'actor',
      find: (call) =>
        call.bucket === 'entities'
          ? Object.assign(new Error('vector index offline'), { name: 'ConnectionError' })
          : { memories: [hit(`${U}/memories/events/e.md`, 0.5)] },
    });
    expect(merged.candidates.map((c) => c.category)).toEqual(['events']);
    expect(merged.searched).toEqual({ events: 1, entities: 0 });
    expect(merged.retrievalErrors).toEqual(['ConnectionError: vector index offline']);
  });

  it('a directory hit becomes the directory URI', () => {
    const merged = runRetrieval({
      identity: plain,
      quotas: { entities: 1 },
      peerScope: 'actor',
      find: () => ({ memories: [{ uri: `${U}/memories/entities/.abstract.md`, score: 0.4, level: 0, abstract: '' }] }),
    });
    expect(merged.candidates).toEqual([
      {
        uri: `${U}/memories/entities/.abstract.md`,
        baseUri: `${U}/memories/entities`,
        category: 'entities',
        score: 0.4,
        rankedScore: 0.4,
        level: 0,
        abstract: '',
        origin: 'self',
        isDirectory: true,
      },
    ]);
  });

  it('bucketed: quota cut per bucket, cross-bucket dedupe keeps the higher raw score at the first position, stable sort', () => {
    const both = `${U}/memories/events/both.md`;
    const merged = runRetrieval({
      identity: plain,
      quotas: { events: 2, entities: 1 },
      peerScope: 'actor',
      find: (call) =>
        call.bucket === 'events'
          ? {
              memories: [
                hit(both, 0.5),
                hit(`${U}/memories/events/tie.md`, 0.6),
                hit(`${U}/memories/events/cut.md`, 0.1),
              ],
            }
          : { memories: [hit(both, 0.6), hit(`${U}/memories/entities/tie.md`, 0.6)] },
    });
    expect(merged.candidates.map((c) => [c.baseUri, c.category, c.score])).toEqual([
      [`${U}/memories/events/tie.md`, 'events', 0.6],
      [both, 'entities', 0.6],
    ]);
  });

  it('stable order for equal ranked scores follows bucket then retrieval order', () => {
    const merged = runRetrieval({
      identity: plain,
      quotas: { entities: 2, events: 2 },
      peerScope: 'actor',
      find: (call) => ({
        memories: [hit(`${U}/memories/${call.bucket}/x.md`, 0.5), hit(`${U}/memories/${call.bucket}/y.md`, 0.5)],
      }),
    });
    expect(merged.candidates.map((c) => c.baseUri.slice(U.length))).toEqual([
      '/memories/entities/x.md',
      '/memories/entities/y.md',
      '/memories/events/x.md',
      '/memories/events/y.md',
    ]);
  });
});
