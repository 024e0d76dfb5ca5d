import { categoryFor } from './category-for';
import { countOrigins, originForUri } from './origin';
import { overfetch, peerScanLimit } from './overfetch';
import { normalizePenalties } from './penalties';
import { activeBuckets, resolveQuotas } from './quotas';

const DEFAULTS = {
  events: 0.1,
  entities: 0.1,
  preferences: 0.02,
  experiences: 0.02,
  resources: 0.02,
  skills: 0.02,
  memories: 0.1,
};

describe('resolveQuotas', () => {
  it.each([
    { name: 'both null → flat mode', quotas: null, purpose: null, out: null },
    {
      name: 'coding preset',
      quotas: null,
      purpose: 'coding' as const,
      out: { events: 1, entities: 2, preferences: 1, experiences: 1, resources: 3, skills: 2 },
    },
    {
      name: 'chat preset',
      quotas: null,
      purpose: 'chat' as const,
      out: { events: 3, entities: 3, preferences: 1, experiences: 1, resources: 1, skills: 1 },
    },
    { name: 'given quotas ignore purpose', quotas: { events: 7 }, purpose: 'coding' as const, out: { events: 7 } },
    { name: 'empty map stays bucketed and empty', quotas: {}, purpose: 'coding' as const, out: {} },
    { name: 'unknown keys dropped', quotas: { events: 1, memories: 4, bogus: 2 }, purpose: null, out: { events: 1 } },
    {
      name: 'coercion: negatives, strings, floats, junk',
      quotas: { events: -3, entities: '3', preferences: 2.9, skills: 'x', resources: null },
      purpose: null,
      out: { events: 0, entities: 3, preferences: 2, skills: 0, resources: 0 },
    },
    {
      name: 'zero entries kept',
      quotas: { experiences: 0, events: 2 },
      purpose: null,
      out: { experiences: 0, events: 2 },
    },
  ])('$name', ({ quotas, purpose, out }) => {
    expect(resolveQuotas(quotas, purpose)).toEqual(out);
  });

  it('keeps the caller key order and lists active buckets in it', () => {
    const quotas = resolveQuotas({ skills: 1, experiences: 0, events: 2 }, null)!;
    expect(Object.keys(quotas)).toEqual(['skills', 'experiences', 'events']);
    expect(activeBuckets(quotas)).toEqual([
      ['skills', 1],
      ['events', 2],
    ]);
  });
});

describe('normalizePenalties', () => {
  it.each([
    { name: 'null → defaults', value: null, out: DEFAULTS },
    {
      name: 'a number sets all seven',
      value: 0.3,
      out: Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, 0.3])),
    },
    { name: 'a number is clamped', value: 7, out: Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, 1])) },
    { name: 'unparsable scalar → 0', value: 'lots', out: Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, 0])) },
    {
      name: 'numeric string scalar',
      value: '0.5',
      out: Object.fromEntries(Object.keys(DEFAULTS).map((k) => [k, 0.5])),
    },
    {
      name: 'object overrides known keys, ignores others',
      value: { events: 0.5, bogus: 0.9 },
      out: { ...DEFAULTS, events: 0.5 },
    },
    { name: 'object values clamped', value: { entities: -1, skills: 2 }, out: { ...DEFAULTS, entities: 0, skills: 1 } },
    { name: 'unparsable object value keeps the default', value: { preferences: 'x' }, out: DEFAULTS },
    { name: 'NaN clamps to 0 like Python', value: { memories: 'nan' }, out: { ...DEFAULTS, memories: 0 } },
  ])('$name', ({ value, out }) => {
    const penalties = normalizePenalties(value);
    expect(penalties).toEqual(out);
    expect(Object.keys(penalties)).toEqual([
      'events',
      'entities',
      'preferences',
      'experiences',
      'resources',
      'skills',
      'memories',
    ]);
  });
});

describe('categoryFor', () => {
  const U = 'viking://user/test_user';
  it.each([
    {
      name: 'bucket wins over the URI',
      uri: `${U}/memories/events/a.md`,
      bucket: 'entities' as const,
      out: 'entities',
    },
    {
      name: 'resources list owns a memory-looking path',
      uri: 'viking://resources/backup/memories/events/log.md',
      bucket: 'resources' as const,
      out: 'resources',
    },
    { name: 'events from the URI', uri: `${U}/memories/events/e.md`, bucket: null, out: 'events' },
    { name: 'trajectories → catch-all', uri: `${U}/memories/trajectories/t.md`, bucket: null, out: 'memories' },
    { name: 'cases → catch-all', uri: `${U}/memories/cases/c.md`, bucket: null, out: 'memories' },
    { name: 'skill-usage memories → catch-all', uri: `${U}/memories/skills/s.md`, bucket: null, out: 'memories' },
    { name: 'user skills', uri: `${U}/skills/real.md`, bucket: null, out: 'skills' },
    { name: 'private resources', uri: `${U}/resources/r.md`, bucket: null, out: 'resources' },
    { name: 'shared resources root', uri: 'viking://resources', bucket: null, out: 'resources' },
    {
      name: 'declared category used when the URI says nothing',
      uri: `${U}/misc/x.md`,
      bucket: null,
      declared: 'skills',
      out: 'skills',
    },
    {
      name: 'unknown declared category ignored',
      uri: `${U}/misc/x.md`,
      bucket: null,
      declared: 'docs',
      out: 'memories',
    },
    {
      name: 'user root from the resources list is not a resource',
      uri: `${U}/.overview.md`,
      bucket: 'resources' as const,
      out: 'memories',
    },
    { name: 'user root without a list', uri: U, bucket: null, out: 'memories' },
    { name: 'users root', uri: 'viking://user/.abstract.md', bucket: 'resources' as const, out: 'memories' },
    { name: 'account root', uri: 'viking://', bucket: 'skills' as const, out: 'memories' },
    {
      name: 'a user subdirectory keeps its list',
      uri: `${U}/resources/.overview.md`,
      bucket: 'resources' as const,
      out: 'resources',
    },
  ])('$name', ({ uri, bucket, declared, out }) => {
    expect(categoryFor(uri, bucket, declared)).toBe(out);
  });
});

describe('originForUri', () => {
  const U = 'viking://user/u1';
  it.each([
    { name: 'actor peer', uri: `${U}/peers/current/memories/events/a.md`, actor: 'current', out: 'actor_peer' },
    {
      name: 'other peer with an actor',
      uri: `${U}/peers/bob/memories/events/a.md`,
      actor: 'current',
      out: 'other_peer',
    },
    { name: 'any peer without an actor', uri: `${U}/peers/current/memories/a.md`, actor: null, out: 'other_peer' },
    {
      name: 'peer id sharing a prefix with the actor',
      uri: `${U}/peers/current2/memories/a.md`,
      actor: 'current',
      out: 'other_peer',
    },
    { name: 'own memories', uri: `${U}/memories/events/a.md`, actor: 'current', out: 'self' },
    { name: 'shared resources', uri: 'viking://resources/a.md', actor: 'current', out: 'self' },
    { name: 'agent skills', uri: 'viking://agent/skills/s', actor: null, out: 'self' },
    { name: 'another user is not a peer', uri: 'viking://user/u2/peers/current/x', actor: 'current', out: 'self' },
  ])('$name', ({ uri, actor, out }) => {
    expect(originForUri(uri, 'u1', actor)).toBe(out);
  });

  it('counts origins with every key present', () => {
    expect(countOrigins([{ origin: 'self' }, { origin: 'self' }, { origin: 'other_peer' }])).toEqual({
      actor_peer: 0,
      self: 2,
      other_peer: 1,
    });
    expect(countOrigins([])).toEqual({ actor_peer: 0, self: 0, other_peer: 0 });
  });
});

describe('overfetch', () => {
  it.each([
    { name: 'quota 4, three excluded', want: 4, excluded: 3, limit: 7, scan: 19 },
    { name: 'quota 2, three excluded (peer scan 8+3)', want: 2, excluded: 3, limit: 5, scan: 11 },
    { name: 'flat default, no exclusions', want: 10, excluded: 0, limit: 10, scan: 40 },
    { name: 'compensation capped at twice the want', want: 1, excluded: 50, limit: 3, scan: 12 },
    { name: 'zero quota stays zero', want: 0, excluded: 5, limit: 0, scan: 0 },
  ])('$name', ({ want, excluded, limit, scan }) => {
    expect(overfetch(want, excluded)).toBe(limit);
    expect(peerScanLimit(want, excluded)).toBe(scan);
  });
});
