import { runRetrieval } from '../testing/retrieval-scenario';
import { Identity } from '../identity/identity';
import { FindHit } from './find-hit';
import { resolveQuotas, RECALL_DEFAULT_QUOTAS } from './quotas';

const devRoot: Identity = { accountId: 'default', userId: 'default', role: 'root', actorPeerId: null };
const tester: Identity = { accountId: 'acme', userId: 'test_user', role: 'user', actorPeerId: 'current' };
const plain: Identity = { ...tester, actorPeerId: null };
const U = 'viking://user/test_user';

const hit = (uri: string, score: number, abstract = `abs ${uri}`): FindHit => ({ uri, score, abstract });

describe('retrieval plan', () => {
  it('flat default asks for 10 on the default targets, then scans peers for 40 without the actor', () => {
    const { calls } = runRetrieval({ identity: plain });
    expect(calls).toEqual([
      { bucket: null, query: 'q', targetUri: '', openContext: false, limit: 10, contextTypeFilter: null },
      { bucket: null, query: 'q', targetUri: `${U}/peers`, openContext: true, limit: 40, contextTypeFilter: null },
    ]);
  });

  it.each([
    {
      name: 'events+skills, actor scope, dev root',
      scenario: { identity: devRoot, quotas: { events: 2, skills: 1 }, peerScope: 'actor' as const },
      targets: ['viking://user/default/memories/events', 'viking://user/default/skills', 'viking://agent/skills'],
    },
    {
      name: 'coding purpose with actor covers every domain',
      scenario: { identity: tester, quotas: resolveQuotas(null, 'coding'), peerScope: 'actor' as const },
      targets: [
        `${U}/memories/events`,
        `${U}/peers/current/memories/events`,
        `${U}/memories/entities`,
        `${U}/peers/current/memories/entities`,
        `${U}/memories/preferences`,
        `${U}/peers/current/memories/preferences`,
        `${U}/memories/experiences`,
        `${U}/peers/current/memories/experiences`,
        'viking://resources',
        `${U}/resources`,
        `${U}/peers/current/resources`,
        `${U}/skills`,
        'viking://agent/skills',
      ],
    },
    {
      name: 'resources with actor and peer_scope all: actor resources, no peers scan',
      scenario: { identity: tester, quotas: { resources: 2 }, peerScope: 'all' as const },
      targets: ['viking://resources', `${U}/resources`, `${U}/peers/current/resources`],
    },
    {
      name: 'resources without actor search the whole user root',
      scenario: { identity: plain, quotas: { resources: 1 } },
      targets: ['viking://resources', U],
    },
    {
      name: 'root resources fall back with the actor peer',
      scenario: { identity: { ...devRoot, actorPeerId: 'p' }, quotas: { resources: 1 }, peerScope: 'actor' as const },
      targets: ['viking://user/default/resources', 'viking://resources', 'viking://user/default/peers/p/resources'],
    },
    {
      name: 'memory bucket with peer_scope all adds an open-context peers scan',
      scenario: { identity: tester, quotas: { events: 1 } },
      targets: [`${U}/memories/events`, `${U}/peers/current/memories/events`, `${U}/peers`],
    },
    {
      name: 'zero quotas search nothing',
      scenario: { identity: tester, quotas: { events: 0, skills: 0 } },
      targets: [],
    },
    {
      name: '/recall defaults never target experiences',
      scenario: { identity: plain, quotas: { ...RECALL_DEFAULT_QUOTAS }, peerScope: 'actor' as const },
      targets: [`${U}/memories/events`, `${U}/memories/entities`, `${U}/memories/preferences`],
    },
  ])('$name', ({ scenario, targets }) => {
    expect(runRetrieval(scenario).targets).toEqual(targets);
  });

  it('peer_scope actor never targets …/peers', () => {
    const { targets } = runRetrieval({ identity: tester, quotas: { ...RECALL_DEFAULT_QUOTAS }, peerScope: 'actor' });
    expect(targets.some((t) => t.endsWith('/peers'))).toBe(false);
  });

  it('every call over-fetches to 7 for quota 4 with three exclusions', () => {
    const { calls } = runRetrieval({
      identity: tester,
      quotas: { events: 4 },
      peerScope: 'actor',
      excluded: ['a', 'b', 'c'],
    });
    expect(calls.map((c) => c.limit)).toEqual([7, 7]);
  });

  it('fans out once per planned query, own scopes before peer scans, blanks dropped', () => {
    const { calls } = runRetrieval({ identity: plain, quotas: { events: 2 }, queries: ['q', '', 'q2'] });
    expect(calls.map((c) => [c.query, c.targetUri, c.limit, c.contextTypeFilter])).toEqual([
      ['q', `${U}/memories/events`, 2, 'memory'],
      ['q2', `${U}/memories/events`, 2, 'memory'],
      ['q', `${U}/peers`, 8, 'memory'],
      ['q2', `${U}/peers`, 8, 'memory'],
    ]);
  });

  it('searches the empty query once when no query is planned', () => {
    expect(runRetrieval({ identity: plain, queries: [], peerScope: 'actor' }).calls.map((c) => c.query)).toEqual(['']);
  });
});

describe('retrieval plan: quotas beat limit', () => {
  it('the coding preset is not truncated by limit 1', () => {
    const { candidates } = runRetrieval({
      identity: tester,
      quotas: resolveQuotas(null, 'coding'),
      limit: 1,
      peerScope: 'actor',
      find: (call) => {
        const list = call.bucket === 'resources' || call.bucket === 'skills' ? call.bucket : 'memories';
        return { [list]: [0, 1, 2].map((i) => hit(`${call.targetUri}/${i}.md`, 0.9 - i / 100)) };
      },
    });
    expect(candidates).toHaveLength(10);
  });
});
