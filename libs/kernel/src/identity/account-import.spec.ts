import { KernelError } from '../kernel.error';
import { ImportLine, ImportOrder, readImportLine } from './account-import';

const bounds = {
  maxUsers: 3,
  maxTags: 2,
  maxTagChars: 16,
  maxDepth: 8,
  uri: { maxChars: 200, maxDepth: 6, maxSegmentChars: 40 },
  maxDescriptionChars: 50,
};
const at = '2026-12-04T10:00:00.000Z';
const account = { type: 'account', format: 1, users: [{ user_id: 'u1', role: 'user' }], limits: {} };
const node = (uri: string, extra: object = {}) => ({
  type: 'node',
  uri,
  kind: 'file',
  tags: [],
  created_at: at,
  updated_at: at,
  content: 'x',
  ...extra,
});
const session = (session_id: string, user_id = 'u1') => ({
  type: 'session',
  user_id,
  session_id,
  created_at: at,
  updated_at: at,
  commit_count: 0,
  event_tags: [],
});
const message = (seq: number, session_id = 's1') => ({
  type: 'message',
  user_id: 'u1',
  session_id,
  seq,
  message_id: `m${seq}`,
  role: 'user',
  content: 'hi',
  parts: null,
  created_at: at,
});
const archive = (archive_index: number) => ({
  type: 'archive',
  user_id: 'u1',
  session_id: 's1',
  archive_index,
  status: 'done',
  created_at: at,
  abstract: '',
  overview: '',
  messages: [],
});
const end = (counts: object) => ({ type: 'end', nodes: 0, sessions: 0, archives: 0, messages: 0, ...counts });

function refusal(fn: () => unknown): { message: string; field: unknown } {
  try {
    fn();
  } catch (e) {
    if (e instanceof KernelError) return { message: e.message, field: e.details?.field };
    throw e;
  }
  throw new Error('not refused');
}

function run(lines: object[]): void {
  const order = new ImportOrder();
  lines.forEach((l, i) => order.accept(readImportLine(l, i + 1, bounds), i + 1));
  order.assertEnded(lines.length);
}

describe('readImportLine', () => {
  it('reads each kind of line, normalising times and defaulting a message without extra', () => {
    expect(readImportLine(account, 1, bounds)).toEqual({ type: 'account', users: account.users, limits: {} });
    const n = readImportLine(node('viking://resources/a.md', { created_at: '2026-12-04T11:00:00+01:00' }), 2, bounds);
    expect(n).toMatchObject({ uri: 'viking://resources/a.md', content: 'x', created_at: at });
    const m = readImportLine(message(1), 3, bounds) as Extract<ImportLine, { type: 'message' }>;
    expect(m.extra).toEqual({});
    expect(readImportLine(archive(1), 4, bounds)).toMatchObject({ archive_index: 1, status: 'done' });
  });

  it('names the line and the field it refuses', () => {
    expect(refusal(() => readImportLine({ ...account, format: 2 }, 1, bounds)).field).toBe('line 1: format');
    expect(refusal(() => readImportLine(node('viking://~/a.md'), 7, bounds)).field).toBe('line 7: uri');
    expect(refusal(() => readImportLine(node('viking://'), 7, bounds)).field).toBe('line 7: uri');
    expect(refusal(() => readImportLine(node('viking://resources/a/../b.md'), 7, bounds)).field).toBe('line 7: uri');
    expect(refusal(() => readImportLine(node('viking://resources/a.md', { kind: 'directory' }), 3, bounds)).field).toBe(
      'line 3: content',
    );
    expect(
      refusal(() => readImportLine(node('viking://resources/a.md', { tags: ['a', 'b', 'c'] }), 3, bounds)).field,
    ).toBe('line 3: tags');
    expect(
      refusal(() => readImportLine(node('viking://resources/a.md', { created_at: 'yesterday' }), 3, bounds)).field,
    ).toBe('line 3: created_at');
    expect(refusal(() => readImportLine({ ...session('..') }, 4, bounds)).field).toBe('line 4: session_id');
    expect(refusal(() => readImportLine({ ...message(0) }, 4, bounds)).field).toBe('line 4: seq');
    expect(
      refusal(() => readImportLine({ ...account, users: [{ user_id: 'a@b@c', role: 'user' }] }, 1, bounds)).field,
    ).toBe('line 1: users[0].user_id');
    expect(refusal(() => readImportLine({ ...account, users: Array(4).fill(account.users[0]) }, 1, bounds)).field).toBe(
      'line 1: users',
    );
    expect(refusal(() => readImportLine({ ...message(1), parts: [null] }, 4, bounds)).field).toBe('line 4: parts[0]');
    expect(
      refusal(() => readImportLine({ ...archive(1), messages: [{ id: 'm', role: 'user' }] }, 4, bounds)).field,
    ).toBe('line 4: messages[0].created_at');
    // A node's URI is bounded as the request gate bounds one: length, depth, segment (the writes build every
    // ancestor of a URI, work quadratic in its depth; the store's key cannot hold a long segment).
    const deep = refusal(() => readImportLine(node(`viking://resources/${'a/'.repeat(20000)}f.md`), 5, bounds));
    expect([deep.field, deep.message]).toEqual(['line 5: uri', expect.stringContaining('at most 200 characters')]);
    const deeper = refusal(() => readImportLine(node(`viking://resources/${'a/'.repeat(7)}f.md`), 5, bounds));
    expect([deeper.field, deeper.message]).toEqual(['line 5: uri', expect.stringContaining('at most 6 path segments')]);
    const wide = refusal(() => readImportLine(node(`viking://resources/${'s'.repeat(41)}.md`), 5, bounds));
    expect([wide.field, wide.message]).toEqual(['line 5: uri', expect.stringContaining('at most 40 characters')]);
    // Years JavaScript reads and the store refuses.
    for (const created_at of ['0000-06-01T00:00:00Z', '+010000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z']) {
      const r = refusal(() => readImportLine(node('viking://resources/a.md', { created_at }), 3, bounds));
      expect([created_at, r.field]).toEqual([created_at, 'line 3: created_at']);
    }
    expect(
      readImportLine(node('viking://resources/a.md', { created_at: '0001-01-01T00:00:00Z' }), 3, bounds),
    ).toMatchObject({ created_at: '0001-01-01T00:00:00.000Z' });
    expect(refusal(() => readImportLine([1], 9, bounds)).field).toBe('line 9');
    expect(refusal(() => readImportLine({ type: 'other' }, 9, bounds)).field).toBe('line 9: type');
  });

  it("reads a session's settings and counters, and gives an earlier export's session a new one's defaults", () => {
    const settings = {
      auto_commit_policy: { message_count_threshold: 20, idle_timeout_seconds: 600 },
      memory_policy: { peer: { enabled: false }, memory_types: ['experiences', 'events'] },
      retention_mode: 'turn_budget',
      keep_recent_count: 0,
      keep_recent_turn_count: 2,
      retained_message_token_budget: 5000,
      min_raw_tail_steps: 3,
      last_commit_at: at,
      last_auto_commit_at: null,
      memories_extracted: { memory_write: 2, memory_edit: 1, total: 3 },
      llm_token_usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    };
    const read = readImportLine({ ...session('s1'), ...settings }, 4, bounds);
    expect(read).toMatchObject({
      ...settings,
      // Policies as the session routes store them: the auto-commit policy whole, the memory policy normalised.
      auto_commit_policy: { message_count_threshold: 20, idle_timeout_seconds: 600, pending_token_threshold: 150_000 },
      memory_policy: { self: { enabled: true }, peer: { enabled: false } },
    });
    expect((read as { memory_policy: { memory_types: string[] } }).memory_policy.memory_types).toContain('events');
    expect(readImportLine(session('s1'), 4, bounds)).toMatchObject({
      auto_commit_policy: null,
      memory_policy: null,
      retention_mode: '',
      keep_recent_count: 0,
      min_raw_tail_steps: 1,
      last_commit_at: null,
      memories_extracted: {},
      llm_token_usage: {},
    });
    const refused = (extra: object) => refusal(() => readImportLine({ ...session('s1'), ...extra }, 4, bounds)).field;
    expect(refused({ auto_commit_policy: { sometimes: 1 } })).toBe('line 4: auto_commit_policy.sometimes');
    expect(refused({ auto_commit_policy: 'often' })).toBe('line 4: auto_commit_policy');
    expect(refused({ memory_policy: { memory_types: ['dreams'] } })).toBe('line 4: memory_policy.memory_types');
    expect(refused({ retention_mode: 'forever' })).toBe('line 4: retention_mode');
    expect(refused({ keep_recent_turn_count: -1 })).toBe('line 4: keep_recent_turn_count');
    expect(refused({ min_raw_tail_steps: 10_001 })).toBe('line 4: min_raw_tail_steps');
    expect(refused({ last_commit_at: 'soon' })).toBe('line 4: last_commit_at');
    expect(refused({ memories_extracted: { total: 1.5 } })).toBe('line 4: memories_extracted.total');
    expect(refused({ llm_token_usage: { cost: -1 } })).toBe('line 4: llm_token_usage.cost');
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 1]));
    expect(refused({ llm_token_usage: many })).toBe('line 4: llm_token_usage');
    // A counter name this version does not write is kept: a backup comes back whole.
    expect(readImportLine({ ...session('s1'), llm_token_usage: { cost: 2 } }, 4, bounds)).toMatchObject({
      llm_token_usage: { cost: 2 },
    });
    expect(refused({ llm_token_usage: [] })).toBe('line 4: llm_token_usage');
  });

  it('refuses what the store cannot hold anywhere in the line: NUL, unpaired surrogates, deep nesting', () => {
    expect(
      refusal(() => readImportLine(node('viking://resources/a.md', { content: 'a\u0000b' }), 2, bounds)).message,
    ).toMatch(/NUL/);
    const parts = [{ type: 'text', text: 'ok \ud800' }];
    expect(refusal(() => readImportLine({ ...message(1), parts }, 2, bounds)).message).toMatch(/surrogate/);
    expect(readImportLine({ ...message(1), content: 'pair 🐉' }, 2, bounds)).toMatchObject({ content: 'pair 🐉' });
    let deep: unknown = 'x';
    for (let i = 0; i < 10; i++) deep = [deep];
    expect(refusal(() => readImportLine({ ...archive(1), messages: deep }, 2, bounds)).message).toMatch(/deeper/);
  });
});

describe('ImportOrder', () => {
  it('accepts an export in its order, nodes and sessions in any order among themselves, and checks the end counts', () => {
    expect(() =>
      run([
        account,
        node('viking://resources/b.md'),
        node('viking://resources/a.md'),
        node('viking://user/u1/memories/a.md'),
        session('s2'),
        session('s1'),
        archive(1),
        archive(2),
        message(5),
        message(6),
        end({ nodes: 3, sessions: 2, archives: 2, messages: 2 }),
      ]),
    ).not.toThrow();
  });

  it('refuses lines out of order, unknown users, wrong counts, a missing end and lines after it', () => {
    const cases: [object[], RegExp][] = [
      [[node('viking://resources/a.md')], /starts with its account line/],
      [[account, account], /one account line/],
      [[account, session('s1'), node('viking://resources/a.md')], /before the sessions/],
      [[account, session('s1', 'nobody')], /not in the account line's users/],
      [[account, node('viking://user/nobody/memories/a.md')], /user nobody is not in the account line's users/],
      [[account, message(1)], /follows its session's line/],
      [[account, session('s1'), message(2), message(2)], /seq order/],
      [[account, session('s1'), message(1), archive(1)], /archives come before its messages/],
      [[account, session('s1'), archive(2), archive(1)], /archive_index order/],
      [[account, end({ nodes: 1 })], /end line counts 1 nodes, the export held 0/],
      [[account], /without its end line/],
      [[account, end({}), node('viking://resources/a.md')], /nothing may follow/],
    ];
    for (const [lines, expected] of cases) expect(refusal(() => run(lines)).message).toMatch(expected);
  });
});

describe("a session's tool-result and usage records", () => {
  const toolResult = (session_id = 's1') => ({
    type: 'tool_result',
    user_id: 'u1',
    session_id,
    tool_result_id: 'tr_1',
    tool_id: 'call_1',
    tool_name: 'read_file',
    message_id: 'm1',
    mime_type: 'text/plain',
    original_chars: 22000,
    preview_chars: 2000,
    sha256: 'a'.repeat(64),
    reason: 'single_threshold',
    created_at: at,
  });
  const usage = (extra: object = {}) => ({
    type: 'usage',
    user_id: 'u1',
    session_id: 's1',
    kind: 'context',
    uri: 'viking://resources/a.md',
    skill: null,
    created_at: at,
    ...extra,
  });
  const end = (more: object) => ({ type: 'end', nodes: 0, sessions: 1, archives: 0, messages: 1, ...more });

  it('follow their session and its messages, counted by the end line when it counts them', () => {
    expect(() =>
      run([account, session('s1'), message(1), toolResult(), usage(), end({ tool_results: 1, usage: 1 })]),
    ).not.toThrow();
    // An export written before these lines: its end line counts none of them.
    expect(() => run([account, session('s1'), message(1), end({})])).not.toThrow();
    expect(refusal(() => run([account, session('s1'), message(1), toolResult(), end({ tool_results: 2 })])).field).toBe(
      'line 5: tool_results',
    );
    expect(refusal(() => run([account, session('s1'), message(1), toolResult('s2'), end({})])).field).toBe(
      'line 4: session_id',
    );
    // Nothing of the session after them.
    expect(refusal(() => run([account, session('s1'), toolResult(), message(1), end({})])).field).toBe('line 4: seq');
  });

  it('are checked field by field', () => {
    expect(refusal(() => readImportLine({ ...toolResult(), sha256: 'xyz' }, 3, bounds)).field).toBe('line 3: sha256');
    expect(refusal(() => readImportLine({ ...toolResult(), tool_name: 'n'.repeat(300) }, 3, bounds)).field).toBe(
      'line 3: tool_name',
    );
    expect(refusal(() => readImportLine(usage({ kind: 'other' }), 3, bounds)).field).toBe('line 3: kind');
    expect(
      refusal(() => readImportLine(usage({ uri: `viking://resources/${'a/'.repeat(10)}f` }), 3, bounds)).field,
    ).toBe('line 3: uri');
    expect(
      readImportLine(usage({ kind: 'skill', skill: { uri: 'viking://agent/skills/s' } }), 3, bounds),
    ).toMatchObject({
      kind: 'skill',
      skill: { uri: 'viking://agent/skills/s' },
    });
  });
});
