import { createHash } from 'node:crypto';
import {
  effectiveExtraction,
  extractOffline,
  serverDefaultMemoryPolicy,
  ExtractionInput,
  memoryRoot,
  MemoryRouter,
  memoryRouting,
  parseModelExtraction,
  SessionMessage,
} from '..';

const msg = (id: string, role: string, text: string, peer?: string): SessionMessage => ({
  id,
  role,
  parts: [{ type: 'text', text }],
  created_at: '2026-08-20T10:00:00Z',
  ...(peer !== undefined ? { peer_id: peer } : {}),
});

const input = (messages: SessionMessage[], policy = { self: true, peer: true }): ExtractionInput => ({
  userId: 'alice',
  sessionId: 's1',
  sessionDigest: createHash('sha256').update('s1').digest('hex'),
  archiveIndex: 1,
  messages,
  nowIso: '2026-08-22T00:00:00Z',
  previousOverview: '',
  eventTags: [],
  routing: memoryRouting(messages, policy),
});

const spaces = (x: { memories: { peerId?: string; memoryType: string }[] }, type: string) =>
  [...new Set(x.memories.filter((m) => m.memoryType === type).map((m) => m.peerId ?? 'self'))].sort();

describe('peer memory routing (docs/sessions.md "Peer memories")', () => {
  it('allowed peers are the safe distinct peer ids of the batch, none when peer memory is off', () => {
    const ms = [msg('1', 'user', 'a', 'bob'), msg('2', 'assistant', 'b', 'carol'), msg('3', 'user', 'c', 'bob')];
    expect(memoryRouting(ms, { self: true, peer: true })).toEqual({ self: true, peers: ['bob', 'carol'] });
    expect(memoryRouting(ms, { self: false, peer: false })).toEqual({ self: false, peers: [] });
    // Unsafe ids (never accepted by the API, but archives are data) are not peers.
    expect(
      memoryRouting([msg('1', 'user', 'a', '../x'), msg('2', 'user', 'b', 'a@b@c')], { self: true, peer: true }),
    ).toEqual({ self: true, peers: [] });
  });

  it('the memory roots follow the contract layout', () => {
    expect(memoryRoot('alice', null)).toBe('viking://user/alice/memories');
    expect(memoryRoot('alice', 'bob')).toBe('viking://user/alice/peers/bob/memories');
  });

  it('turns route by their user messages; assistant-only turns take the unique target, else self', () => {
    const ms = [
      msg('1', 'user', 'a', 'bob'),
      msg('2', 'assistant', 'b'),
      msg('3', 'user', 'c'),
      msg('4', 'user', 'd', '..'),
    ];
    const r = new MemoryRouter(memoryRouting(ms, { self: true, peer: true }), ms);
    expect(r.targetsOf([ms[0], ms[1], ms[2]])).toEqual(['bob', null]);
    expect(r.targetsOf([ms[1]])).toEqual([null]); // two targets in the batch: self (allowed)
    expect(r.targetsOf([ms[3]])).toEqual([]); // unsafe peer id: dropped
    const onlyBob = [msg('1', 'user', 'a', 'bob'), msg('2', 'assistant', 'b')];
    const peerOnly = new MemoryRouter(memoryRouting(onlyBob, { self: false, peer: true }), onlyBob);
    expect(peerOnly.targetsOf([onlyBob[1]])).toEqual(['bob']);
    // Self off: a user turn without a peer feeds nothing.
    const mixed = [msg('1', 'user', 'a'), msg('2', 'user', 'b', 'bob')];
    expect(new MemoryRouter(memoryRouting(mixed, { self: false, peer: true }), mixed).targetsOf([mixed[0]])).toEqual(
      [],
    );
    // Peer memory off: a peer's turn is the user's own.
    expect(new MemoryRouter(memoryRouting(mixed, { self: true, peer: false }), mixed).targetsOf([mixed[1]])).toEqual([
      null,
    ]);
  });

  it('model items: no peer → self (or the unique user peer when self is off); unallowed or unsafe → dropped', () => {
    const ms = [msg('1', 'user', 'a', 'bob'), msg('2', 'assistant', 'b', 'helper')];
    const both = new MemoryRouter(memoryRouting(ms, { self: true, peer: true }), ms);
    expect([
      both.itemTarget(undefined),
      both.itemTarget('bob'),
      both.itemTarget('eve'),
      both.itemTarget('a/b'),
    ]).toEqual([null, 'bob', undefined, undefined]);
    const peerOnly = new MemoryRouter(memoryRouting(ms, { self: false, peer: true }), ms);
    expect(peerOnly.itemTarget(null)).toBe('bob');
    const noPeers = new MemoryRouter(memoryRouting(ms, { self: false, peer: false }), ms);
    expect(noPeers.itemTarget(undefined)).toBeUndefined();
  });

  it('the offline extractor writes a peer turn into that peer space, self turns into the own space', () => {
    const talk = [
      msg('u1', 'user', 'I love sailing. Yesterday I met Zebulon at the harbour.', 'bob'),
      msg('a1', 'assistant', 'Zebulon at the harbour, noted.'),
      msg('u2', 'user', 'I prefer green tea. Zebulon called me.'),
    ];
    const both = extractOffline(input(talk));
    expect(spaces(both, 'preferences')).toEqual(['bob', 'self']);
    expect(spaces(both, 'entities')).toEqual(['bob', 'self']);
    const bobPref = both.memories.find((m) => m.peerId === 'bob' && m.memoryType === 'preferences')!;
    expect(bobPref.path).toBe('preferences/bob/sailing.md');
    expect(bobPref.content).toContain('I love sailing.');
    expect(bobPref.content).not.toContain('green tea');
    // Self memory off: nothing in the own space; peer memory off: everything in it.
    const peerOnly = extractOffline(input(talk, { self: false, peer: true }));
    expect(peerOnly.memories.length).toBeGreaterThan(0);
    expect(peerOnly.memories.every((m) => m.peerId === 'bob')).toBe(true);
    const selfOnly = extractOffline(input(talk, { self: true, peer: false }));
    expect(selfOnly.memories.every((m) => m.peerId === undefined)).toBe(true);
    // Without routing (older callers): the own space, as before.
    const { routing: _, ...plain } = input(talk);
    expect(extractOffline(plain).memories.every((m) => m.peerId === undefined)).toBe(true);
  });

  it('model answers: items route by peer_id, events by the user turns of their range', () => {
    const talk = [msg('u1', 'user', 'Bob here, I like chess.', 'bob'), msg('a1', 'assistant', 'Noted.')];
    const answer = JSON.stringify({
      profile: [{ peer_id: 'bob', content: 'Bob plays chess.' }],
      preferences: [
        { topic: 'chess', content: 'likes chess', peer_id: 'bob' },
        { topic: 'tea', content: 'likes tea' },
        { topic: 'x', content: 'y', peer_id: 'mallory' },
      ],
      entities: [],
      events: [{ event_name: 'chat', summary: 'Bob talked about chess.', from: 0, to: 1 }],
      overview: '',
    });
    const out = parseModelExtraction(answer, input(talk), 'alice')!;
    const where = out.memories.map((m) => `${m.peerId ?? 'self'}:${m.path.split('/').slice(0, 2).join('/')}`);
    expect(where).toEqual(['bob:profile.md', 'bob:preferences/bob', 'self:preferences/alice', 'bob:events/2026']);
  });

  it('the server default policy is normalised like a session policy; an invalid one names the setting', () => {
    expect(serverDefaultMemoryPolicy(null)).toBeNull();
    expect(serverDefaultMemoryPolicy({ memory_types: ['profile', 'events'], peer: { enabled: 'off' } })).toEqual({
      self: { enabled: true },
      peer: { enabled: false },
      memory_types: ['events', 'profile'],
    });
    expect(() => serverDefaultMemoryPolicy({ memory_types: ['nope'] })).toThrow(
      'MUNINN_SESSION_MEMORY_POLICY is not a valid memory_policy: Unknown memory_policy.memory_types: nope',
    );
    expect(() => serverDefaultMemoryPolicy([1])).toThrow(/MUNINN_SESSION_MEMORY_POLICY/);
  });

  it('long-term extraction runs when self memory is on or the batch has an allowed peer', () => {
    const peerMsgs = [msg('1', 'user', 'hi', 'bob')];
    const selfOff = { self: { enabled: false }, peer: { enabled: true }, memory_types: null };
    expect(effectiveExtraction(selfOff, peerMsgs).longTerm).toBe(true);
    expect(effectiveExtraction(selfOff, [msg('1', 'user', 'hi')]).longTerm).toBe(false);
    expect(effectiveExtraction({ ...selfOff, peer: { enabled: false } }, peerMsgs).longTerm).toBe(false);
    expect(effectiveExtraction(null, peerMsgs).routing).toEqual({ self: true, peers: ['bob'] });
  });
});
