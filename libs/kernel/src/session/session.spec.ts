import { createHash } from 'node:crypto';
import {
  archiveName,
  AutoCommitState,
  idleCommitWait,
  sessionCheck,
  thresholdCommitAt,
  DEFAULT_AUTO_COMMIT_POLICY,
  extractOffline,
  ExtractionInput,
  mergeQuotes,
  messageTokens,
  namesIn,
  nextArchiveIndex,
  planTurnRetention,
  planTurnRetentionOfTail,
  expandPathVariables,
  expandPartUris,
  normaliseAutoCommitPolicy,
  normaliseEventTags,
  parseArchiveName,
  parseModelExtraction,
  partsByTokens,
  planCommit,
  sanitiseTaskError,
  assertSessionId,
  isSessionId,
  SessionMessage,
  sessionContext,
  sessionFileKey,
  splitToolAggregate,
  turnsOf,
  WORKING_MEMORY_SECTIONS,
} from '..';

const msg = (id: string, role: string, text: string, extra: Partial<SessionMessage> = {}): SessionMessage => ({
  id,
  role,
  parts: [{ type: 'text', text }],
  created_at: '2026-08-20T10:00:00Z',
  ...extra,
});

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

const input = (messages: SessionMessage[], over: Partial<ExtractionInput> = {}): ExtractionInput => ({
  userId: 'alice',
  sessionId: 's1',
  archiveIndex: 3,
  messages,
  nowIso: '2026-09-01T00:00:00Z',
  previousOverview: '',
  eventTags: [],
  ...over,
  sessionDigest: sha256(over.sessionId ?? 's1'),
});

describe('commit rules', () => {
  it('archive names pad to three digits and parse back; other names are not archives', () => {
    expect(archiveName(1)).toBe('archive_001');
    expect(archiveName(1000)).toBe('archive_1000');
    expect(parseArchiveName('archive_042')).toBe(42);
    expect(parseArchiveName('archive_0')).toBeNull();
    expect(parseArchiveName('archive_x')).toBeNull();
    expect(parseArchiveName('notes')).toBeNull();
  });

  it('the next index is past the commit count, the highest archive and the mark of a deleted session', () => {
    expect(nextArchiveIndex(0, 0)).toBe(1);
    expect(nextArchiveIndex(2, 5)).toBe(6);
    expect(nextArchiveIndex(7, 5)).toBe(8);
    expect(nextArchiveIndex(0, 0, 4)).toBe(5);
    expect(nextArchiveIndex(7, 5, 4)).toBe(8);
  });

  it('a commit archives all but the keep window, or skips', () => {
    expect(planCommit(0, 0)).toEqual({ kind: 'skip', reason: 'no_messages' });
    expect(planCommit(2, 5)).toEqual({ kind: 'skip', reason: 'all_within_keep_window' });
    expect(planCommit(4, 2)).toEqual({ kind: 'archive', archiveCount: 2, keep: 2 });
  });

  it('a user message of tool results only is split into one message per result', () => {
    const tools = [
      { type: 'tool', tool_id: 'a' },
      { type: 'tool', tool_id: 'b' },
    ];
    expect(splitToolAggregate('user', tools)).toHaveLength(2);
    expect(splitToolAggregate('assistant', tools)).toHaveLength(1);
  });
});

describe('automatic commit policy', () => {
  it('fills defaults, clamps out-of-range values, coerces numeric strings', () => {
    expect(normaliseAutoCommitPolicy({ pending_token_threshold: 8000, keep_recent_count: 10 })).toEqual({
      ...DEFAULT_AUTO_COMMIT_POLICY,
      pending_token_threshold: 8000,
      keep_recent_count: 10,
    });
    expect(normaliseAutoCommitPolicy({ pending_token_threshold: 10_000_000 }).pending_token_threshold).toBe(1_000_000);
    const neg = normaliseAutoCommitPolicy(
      Object.fromEntries(Object.keys(DEFAULT_AUTO_COMMIT_POLICY).map((k) => [k, -5])),
    );
    expect(Object.values(neg)).toEqual([0, 0, 0, 0, 0]);
    expect(normaliseAutoCommitPolicy({ message_count_threshold: '25' }).message_count_threshold).toBe(25);
  });

  it('rejects unknown keys, nulls and non-integers, naming the field', () => {
    expect(() => normaliseAutoCommitPolicy({ enabled: true })).toThrow(/unknown field: enabled/);
    expect(() => normaliseAutoCommitPolicy({ message_count_threshold: null })).toThrow(/auto_commit_policy=null/);
    expect(() => normaliseAutoCommitPolicy({ idle_timeout_seconds: 1.5 })).toThrow(
      /idle_timeout_seconds must be an integer/,
    );
  });

  const policy = { ...DEFAULT_AUTO_COMMIT_POLICY, pending_token_threshold: 100, message_count_threshold: 50 };
  const state = { pendingTokens: 10, messageCount: 1, keepRecentCount: 0, lastAutoCommitAt: null };
  /** Whether a session's check (as after a message write: no idle time due) commits by threshold. */
  const autoCommitDue = (p: typeof policy | null, s: AutoCommitState, now: number) =>
    sessionCheck(p, { ...s, lastMessageAt: null }, now).commit === 'threshold';
  it('fires only when a threshold is strictly exceeded, never without a policy, never throttled', () => {
    expect(autoCommitDue(policy, state, 0)).toBe(false);
    expect(autoCommitDue(null, { ...state, pendingTokens: 10_000 }, 0)).toBe(false);
    expect(autoCommitDue(policy, { ...state, pendingTokens: 100 }, 0)).toBe(false);
    expect(autoCommitDue(policy, { ...state, pendingTokens: 101 }, 0)).toBe(true);
    expect(autoCommitDue(policy, { ...state, messageCount: 51 }, 0)).toBe(true);
    const throttled = { ...policy, min_commit_interval_seconds: 60 };
    expect(autoCommitDue(throttled, { ...state, pendingTokens: 101, lastAutoCommitAt: 10_000 }, 5_000)).toBe(false);
    const off = { ...policy, pending_token_threshold: 0, message_count_threshold: 0 };
    expect(autoCommitDue(off, { ...state, pendingTokens: 10_000, messageCount: 10_000 }, 0)).toBe(false);
  });

  it('idle commits: due once the idle timeout has passed since the last message, keep window ignored', () => {
    const p = { ...DEFAULT_AUTO_COMMIT_POLICY, idle_timeout_seconds: 60, keep_recent_count: 5 };
    const s = { pendingTokens: 0, messageCount: 2, keepRecentCount: 5, lastAutoCommitAt: null, lastMessageAt: 0 };
    expect(idleCommitWait(p, s, 10_000)).toBe(50_000);
    expect(idleCommitWait(p, s, 300_000)).toBeLessThanOrEqual(0);
    expect(idleCommitWait({ ...p, idle_timeout_seconds: 0 }, s, 300_000)).toBeNull();
    expect(idleCommitWait(null, s, 300_000)).toBeNull();
    expect(idleCommitWait(p, { ...s, messageCount: 0 }, 300_000)).toBeNull();
  });

  it('a throttled threshold commit falls due when the throttle ends', () => {
    const throttled = { ...policy, min_commit_interval_seconds: 60 };
    const over = { ...state, messageCount: 51, lastAutoCommitAt: 10_000 };
    expect(thresholdCommitAt(throttled, over, 5_000)).toBe(70_000);
    expect(thresholdCommitAt(throttled, over, 80_000)).toBe(80_000);
    expect(thresholdCommitAt(throttled, { ...over, lastAutoCommitAt: null }, 5_000)).toBe(5_000);
    expect(thresholdCommitAt(throttled, state, 5_000)).toBeNull();
    // Everything uncommitted is in the keep window: nothing to commit.
    expect(thresholdCommitAt(throttled, { ...over, pendingTokens: 0, keepRecentCount: 51 }, 5_000)).toBeNull();
  });

  it("a session's check: idle first, then a due threshold, else the earlier of the two times", () => {
    const p = { ...policy, idle_timeout_seconds: 60, min_commit_interval_seconds: 30 };
    const quiet = { ...state, lastMessageAt: 0 };
    expect(sessionCheck(p, quiet, 10_000)).toEqual({ commit: null, nextInMs: 50_000 });
    expect(sessionCheck(p, quiet, 60_000)).toEqual({ commit: 'idle', nextInMs: null });
    const over = { ...quiet, messageCount: 51, lastAutoCommitAt: -20_000 };
    // Throttled until 10 s: due then, before the idle time.
    expect(sessionCheck(p, over, 4_000)).toEqual({ commit: null, nextInMs: 6_000 });
    // Due: committed by threshold, the idle check still due for what the keep window keeps.
    expect(sessionCheck(p, over, 10_000)).toEqual({ commit: 'threshold', nextInMs: 50_000 });
    expect(sessionCheck({ ...p, idle_timeout_seconds: 0 }, over, 10_000)).toEqual({
      commit: 'threshold',
      nextInMs: null,
    });
    expect(sessionCheck({ ...p, idle_timeout_seconds: 0 }, quiet, 10_000)).toEqual({ commit: null, nextInMs: null });
    expect(sessionCheck(null, over, 10_000)).toEqual({ commit: null, nextInMs: null });
  });

  it('event tags: trimmed, lower-cased k=v, invalid dropped, a repeated key keeps its last value', () => {
    expect(normaliseEventTags([' Team=Search ', 'team=search', 'channel=web'])).toEqual(['team=search', 'channel=web']);
    expect(normaliseEventTags(['missing-equals', 'channel=web'])).toEqual(['channel=web']);
    expect(normaliseEventTags(['channel=web', 'channel=app'])).toEqual(['channel=app']);
  });
});

describe('session context view', () => {
  const live = [msg('m3', 'user', 'live message')];
  it('newest done archive gives the overview; pending newer archives give their messages first', () => {
    const v = sessionContext(
      [
        { status: 'pending', overview: '', overviewTokens: 0, messages: [msg('m2', 'user', 'pending one')] },
        { status: 'done', overview: '# Working Memory\nx', overviewTokens: 0, messages: [] },
      ],
      live,
      128_000,
    );
    expect(v.messages.map((m) => m.id)).toEqual(['m2', 'm3']);
    expect(v.latest_archive_overview).toContain('# Working Memory');
    expect(v.stats).toMatchObject({ totalArchives: 2, droppedArchives: 2, failedArchives: 0 });
    expect(v.estimatedTokens).toBe(v.stats.activeTokens + v.stats.archiveTokens);
  });

  it('a failed newest archive: no overview, failedArchives 1; budget 0: nothing', () => {
    const v = sessionContext(
      [{ status: 'failed', overview: '', overviewTokens: 0, messages: [msg('m1', 'user', 'x')] }],
      live,
      128_000,
    );
    expect(v.latest_archive_overview).toBe('');
    expect(v.stats.failedArchives).toBe(1);
    expect(v.messages.map((m) => m.id)).toEqual(['m3']);
    const none = sessionContext([{ status: 'done', overview: 'o', overviewTokens: 0, messages: [] }], live, 0);
    expect(none.messages).toEqual([]);
    expect(none.latest_archive_overview).toBe('');
  });

  it('the overview is included only if it fits in what the messages leave', () => {
    const overview = 'word '.repeat(40);
    const active = messageTokens(live[0]);
    const fits = sessionContext([{ status: 'done', overview, overviewTokens: 0, messages: [] }], live, active + 50);
    expect(fits.latest_archive_overview).toBe(overview);
    const tight = sessionContext([{ status: 'done', overview, overviewTokens: 0, messages: [] }], live, active + 49);
    expect(tight.latest_archive_overview).toBe('');
  });
});

describe('session ids (docs/sessions.md "Session ids")', () => {
  it('1–128 of [a-zA-Z0-9_.@-], not "." or "..": the routes, the search fields and the store share the rule', () => {
    for (const ok of ['s1', 'cc-7f3e1c2a-9b8d', 'v1.2', '...', '.a', 'a..', 'x@y@z', 'x'.repeat(128)])
      expect([ok, isSessionId(ok)]).toEqual([ok, true]);
    for (const bad of ['', '.', '..', 'a/b', '../x', 'a b', '😀', 'x'.repeat(129), 'a\u0000'])
      expect([bad, isSessionId(bad)]).toEqual([bad, false]);
    expect(() => assertSessionId('..')).toThrow(
      expect.objectContaining({ details: { field: 'session_id', value: '..' } }),
    );
    expect(() => assertSessionId('ok')).not.toThrow();
  });
});

describe('offline extractor', () => {
  const talk = [
    msg('m1', 'user', 'We are moving the search service to Postgres next sprint.', { peer_id: 'alice' }),
    msg('m2', 'assistant', 'Noted. Should I ask Marguerite about the Zanzibar schema?'),
    msg('m3', 'user', 'Yes please. I love quick reviews, and my favourite editor is Helix.', {
      created_at: 'not a date',
    }),
  ];

  it('is deterministic and writes events with a date line and lead, entities and preferences with quotes', () => {
    const a = extractOffline(input(talk));
    expect(extractOffline(input(talk))).toEqual(a);
    // The whole output, pinned (recorded before quote lines were built once per turn).
    expect(sha256(JSON.stringify(a))).toBe('9ed24115fbc0351120108aa8aaa5045a5b20aa2c9cbf07428da686973d482848');
    const paths = a.memories.map((m) => m.path);
    expect(paths).toContain('events/2026/08/20/s1_archive_003_p1.md');
    expect(paths).toContain('entities/mentioned/marguerite.md');
    expect(paths).toContain('entities/mentioned/zanzibar.md');
    expect(paths).toContain('preferences/alice/quick.md');
    expect(paths).toContain('preferences/alice/editor.md');
    const ev = a.memories.find((m) => m.memoryType === 'events')!.content;
    expect(ev).toMatch(/^# Summary\nThursday 20 August 2026, alice and assistant and user\./);
    expect(ev).toContain('# 2026-08-20 (Thursday) ChatLog:');
    expect(ev).toContain('<!-- MEMORY_FIELDS');
    // A quote is date, speaker and the whole turn; the message id is not served.
    const marguerite = a.memories.find((m) => m.path.endsWith('marguerite.md'))!.content;
    expect(marguerite).toContain('- 2026-08-20 [assistant]: Noted. Should I ask Marguerite about the Zanzibar schema?');
    expect(marguerite).not.toContain('(m2)');
    for (const s of WORKING_MEMORY_SECTIONS) expect(a.overview).toContain(`## ${s}`);
    expect(a.abstract).toMatch(/2 turns, 3 messages$/);
  });

  it('parts stay near the token target; speakers are not entities', () => {
    const long = Array.from({ length: 40 }, (_, i) =>
      msg(`m${i}`, i % 2 ? 'assistant' : 'user', `Turn ${i} talks about the weather in some detail today.`),
    );
    const parts = partsByTokens(turnsOf(long), 200);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.flat()).toHaveLength(40);
    expect(namesIn('Then Alice met Bob in Paris')).toEqual(['Alice', 'Bob', 'Paris']);
    // Days and months are no names, in the plural either; a name ending in s still is.
    expect(namesIn('Lessons with Ines are on Thursdays and Mondays')).toEqual(['Ines']);
    expect(namesIn('We met Marcus in Mays Landing')).toEqual(['Marcus', 'Mays Landing']);
    const mem = extractOffline(input([msg('a', 'user', 'I told Bob about it', { peer_id: 'bob' })]));
    expect(mem.memories.some((m) => m.path.includes('/bob.md'))).toBe(false);
  });

  it('two sessions never name one event file: an id a file name cannot hold carries a hash of itself (docs/sessions.md "Event file names")', () => {
    const eventPaths = (sessionId: string) =>
      extractOffline(input(talk, { sessionId }))
        .memories.filter((m) => m.memoryType === 'events')
        .map((m) => m.path);
    // Lower-case ids with digits, `_` and `-` keep their own readable name.
    expect(eventPaths('col_a')).toEqual(['events/2026/08/20/col_a_archive_003_p1.md']);
    expect(eventPaths('cc-7f3e-01')).toEqual(['events/2026/08/20/cc-7f3e-01_archive_003_p1.md']);
    const upper = eventPaths('Col-A');
    const dotted = eventPaths('col.a');
    expect(upper).toEqual([`events/2026/08/20/col_a.${sha256('Col-A').slice(0, 16)}_archive_003_p1.md`]);
    expect(dotted).toEqual([`events/2026/08/20/col_a.${sha256('col.a').slice(0, 16)}_archive_003_p1.md`]);
    expect(new Set([...upper, ...dotted, ...eventPaths('col_a'), ...eventPaths('col-a')]).size).toBe(4);
    // A plain id spelled like another id's hashed key is still its own (plain keys never hold `.`).
    const spoof = `col_a.${sha256('Col-A').slice(0, 16)}`;
    expect(eventPaths(spoof)[0]).not.toBe(upper[0]);
    // Ids without a letter or digit, a leading `_` or `-`, and ids sharing their first 40 characters.
    expect(new Set([...eventPaths('.'), ...eventPaths('..'), ...eventPaths('_'), ...eventPaths('-')]).size).toBe(4);
    expect(eventPaths('..')[0]).toMatch(/\/session\.[0-9a-f]{16}_archive_003_p1\.md$/);
    const long = 'a'.repeat(40);
    expect(new Set([...eventPaths(long), ...eventPaths(`${long}b`), ...eventPaths(`${long}c`)]).size).toBe(3);
    expect(eventPaths(long)).toEqual([`events/2026/08/20/${long}_archive_003_p1.md`]);
    // The extraction id in the trailer names the same key.
    const fields = extractOffline(input(talk, { sessionId: 'Col-A' })).memories[0].content;
    expect(fields).toContain(`"source_extraction_id": "col_a.${sha256('Col-A').slice(0, 16)}/archive_003"`);
  });

  it('the session key refuses a digest that is not a hex SHA-256', () => {
    expect(() => sessionFileKey('s1', 'abc')).toThrow('SHA-256');
    expect(sessionFileKey('s1', sha256('s1'))).toBe('s1');
  });

  it('merging quotes adds each line once (a replay changes nothing)', () => {
    const once = mergeQuotes(null, '# Marguerite', '- q1 (m1)\n- q2 (m2)');
    expect(mergeQuotes(once, '# Marguerite', '- q2 (m2)')).toBe(once);
    expect(mergeQuotes(once, '# Marguerite', '- q3 (m3)')).toBe(`${once}- q3 (m3)\n`);
  });

  it("merging into a file with a long blank run inside is linear (the file is the user's; /\\s+$/ was quadratic)", () => {
    const existing = `# Bob\n- q1 ${' '.repeat(300_000)}end\n\n\n`;
    expect(mergeQuotes(existing, '# Bob', '- q2')).toBe(`${existing.trimEnd()}\n- q2\n`);
  });

  it('hostile text (long runs of spaces and punctuation) is handled whole (a quadratic scan would hit the test timeout)', () => {
    const evil = `${' '.repeat(200_000)}x${'!'.repeat(200_000)}`;
    const out = extractOffline(input([msg('e', 'user', evil)]));
    expect(out.memories.filter((m) => m.memoryType === 'events')).toHaveLength(1);
    expect(out.memories.filter((m) => m.memoryType === 'entities')).toHaveLength(0);
  });
});

describe('model extraction answers', () => {
  const talk = [msg('m1', 'user', 'I moved to Lisbon in May.'), msg('m2', 'assistant', 'Nice!')];
  const overview = `# Working Memory\n\n${WORKING_MEMORY_SECTIONS.map((s) => `## ${s}\nx`).join('\n\n')}`;

  it('a well-formed answer gives memories at derived paths (never model paths)', () => {
    const answer = JSON.stringify({
      profile: 'Lives in Lisbon.',
      preferences: [{ topic: '../../etc', content: 'likes sun' }],
      entities: [{ category: 'Place', name: 'Lisbon', content: 'City the user moved to in May.' }],
      events: [{ event_name: 'Moved to Lisbon', summary: 'User moved to Lisbon in May.', from: 0, to: 5 }],
      overview,
    });
    const e = parseModelExtraction(`Here you go:\n\`\`\`json\n${answer}\n\`\`\``, input(talk), 'alice')!;
    expect(e.memories.map((m) => m.path).sort()).toEqual([
      'entities/place/lisbon.md',
      'events/2026/08/20/moved_to_lisbon-s1_archive_003_1.md',
      'preferences/alice/etc.md',
      'profile.md',
    ]);
    expect(e.overview).toContain('## Open Issues');
  });

  it('two sessions whose model names the same event write two files (the session key after a `-`)', () => {
    const answer = JSON.stringify({
      events: [{ event_name: 'Moved to Lisbon', summary: 'User moved to Lisbon in May.', from: 0, to: 1 }],
    });
    const path = (sessionId: string) =>
      parseModelExtraction(answer, input(talk, { sessionId }), 'alice')!.memories[0].path;
    expect(path('Col-A')).toBe(
      `events/2026/08/20/moved_to_lisbon-col_a.${sha256('Col-A').slice(0, 16)}_archive_003_1.md`,
    );
    expect(path('col.a')).not.toBe(path('Col-A'));
    // (event "a b", session "c") and (event "a", session "b_c") would have met without the `-`.
    const named = (event: string, sessionId: string) =>
      parseModelExtraction(
        JSON.stringify({ events: [{ event_name: event, summary: 'x', from: 0, to: 0 }] }),
        input(talk, { sessionId }),
        'alice',
      )!.memories[0].path;
    expect(named('a b', 'c')).not.toBe(named('a', 'b_c'));
  });

  it('malformed or empty answers are null (the caller falls back)', () => {
    expect(parseModelExtraction('not json', input(talk), 'alice')).toBeNull();
    expect(parseModelExtraction('{"events": "nope"}', input(talk), 'alice')).toBeNull();
    expect(parseModelExtraction('[1,2]', input(talk), 'alice')).toBeNull();
  });
});

describe('task errors', () => {
  it('redacts keys and cuts at 500 characters', () => {
    expect(sanitiseTaskError('boom sk-ant-abc123 and Bearer xyz.789')).toBe('boom sk-[REDACTED] and Bearer [REDACTED]');
    const long = sanitiseTaskError('e'.repeat(800));
    expect(long).toHaveLength(500 + '...[truncated]'.length);
  });
});

describe('turn-budget retention', () => {
  const m = (role: string, tokens: number, messageKind?: string) => ({ role, tokens, messageKind });
  const talk = [m('user', 10), m('assistant', 10), m('user', 10), m('assistant', 5), m('tool', 5, 'tool_transport')];

  it('keeps the newest whole turns within the count and the budget', () => {
    expect(planTurnRetention(talk, { turns: 1, tokenBudget: 100, minTailSteps: 1 })).toEqual({
      archive: 2,
      retainedTokens: 20,
      budgetExceeded: false,
    });
    expect(planTurnRetention(talk, { turns: 5, tokenBudget: 100, minTailSteps: 1 }).archive).toBe(0);
    expect(planTurnRetention(talk, { turns: 5, tokenBudget: 25, minTailSteps: 1 }).archive).toBe(2);
    expect(planTurnRetention(talk, { turns: 0, tokenBudget: 100, minTailSteps: 1 }).archive).toBe(5);
  });

  it('a latest turn over the budget keeps its newest steps, at least minTailSteps (tool transport joins its step)', () => {
    expect(planTurnRetention(talk, { turns: 2, tokenBudget: 12, minTailSteps: 1 })).toEqual({
      archive: 3,
      retainedTokens: 10,
      budgetExceeded: false,
    });
    expect(planTurnRetention(talk, { turns: 2, tokenBudget: 1, minTailSteps: 1 })).toEqual({
      archive: 3,
      retainedTokens: 10,
      budgetExceeded: true,
    });
    expect(planTurnRetention(talk, { turns: 2, tokenBudget: 1, minTailSteps: 0 }).archive).toBe(5);
    expect(planTurnRetention([], { turns: 2, tokenBudget: 1, minTailSteps: 1 }).archive).toBe(0);
  });

  it('plans from a tail exactly as from every message, or asks for a longer tail', () => {
    // 3,000 seeded random sessions (a kernel spec stays free of libraries: a small LCG, not a fuzzer).
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let run = 0; run < 3000; run++) {
      const msgs = Array.from({ length: rand(61) }, () => ({
        role: ['user', 'assistant', 'tool'][rand(3)],
        messageKind: rand(4) === 0 ? 'tool_transport' : undefined,
        tokens: rand(41),
      }));
      const b = { turns: rand(6), tokenBudget: 1 + rand(200), minTailSteps: rand(4) };
      const whole = planTurnRetention(msgs, b);
      // Grow the tail as the store does (x4) until it decides; it always decides on the whole list.
      let plan = null;
      for (let k = msgs.length ? 1 + rand(msgs.length) : 0; !plan; k = Math.min(msgs.length, k * 4 || 1)) {
        plan = planTurnRetentionOfTail(msgs.slice(msgs.length - k), msgs.length, b);
        if (!plan) expect(k).toBeLessThan(msgs.length);
      }
      expect(plan).toEqual(whole);
    }
    // A tail that is kept whole says nothing of what is before it.
    expect(planTurnRetentionOfTail(talk.slice(2), talk.length, { turns: 5, tokenBudget: 100, minTailSteps: 1 })).toBe(
      null,
    );
  });
});

describe('path variables', () => {
  const now = new Date('2026-08-22T23:30:00Z'); // a Saturday in ISO week 34, Q3
  it('expands every calendar variable in UTC and leaves others alone', () => {
    expect(expandPathVariables('viking://resources/{calendar:today}/x', now)).toBe('viking://resources/2026/08/22/x');
    expect(expandPathVariables('{calendar:yesterday}|{calendar:tomorrow}', now)).toBe('2026/08/21|2026/08/23');
    expect(expandPathVariables('{calendar:year}-{calendar:month}-{calendar:day}', now)).toBe('2026-08-22');
    expect(expandPathVariables('{calendar:ym} {calendar:quarter} {calendar:yq}', now)).toBe('2026/08 Q3 2026/Q3');
    expect(expandPathVariables('{calendar:week} {calendar:yw}', now)).toBe('W34 2026/W34');
    expect(expandPathVariables('{calendar:week}', new Date('2027-01-01T00:00:00Z'))).toBe('W53');
    expect(expandPathVariables('{calendar:yw}', new Date('2027-01-01T00:00:00Z'))).toBe('2026/W53');
    expect(expandPathVariables('{calendar:bogus} {user}', now)).toBe('{calendar:bogus} {user}');
  });
  it('applies to viking image URLs, context and tool URIs only', () => {
    const img = { type: 'image_url', image_url: { url: 'viking://resources/{calendar:today}/a.png', detail: 'low' } };
    expect(expandPartUris(img, now)).toEqual({
      type: 'image_url',
      image_url: { url: 'viking://resources/2026/08/22/a.png', detail: 'low' },
    });
    const web = { type: 'image_url', image_url: 'https://x/{calendar:today}.png' };
    expect(expandPartUris(web, now)).toEqual(web);
    expect(expandPartUris({ type: 'context', uri: 'viking://~/memories/{calendar:ym}' }, now)).toEqual({
      type: 'context',
      uri: 'viking://~/memories/2026/08',
    });
    expect(expandPartUris({ type: 'text', text: '{calendar:today}' }, now)).toEqual({
      type: 'text',
      text: '{calendar:today}',
    });
  });
});
