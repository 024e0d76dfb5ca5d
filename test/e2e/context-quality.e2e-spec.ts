// Issue 14, end to end: the README's first session serves the memory and nothing redundant (the
// directory overviews that only repeat it are withdrawn and counted in `stats.redundant`), the user
// root is never labelled a resource, and a directory ranks after the found files it summarises.
import { eventually, startTestApp, TestApp } from '@app/testing';
import { As, context, devAs, entriesOf, post, seed, seedMany, urisOf } from './context-support';

describe('context quality (issue 14)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });
  /** Lets every queue go idle: directory summaries are refreshed after the writes that change them. */
  const idle = async (as: As) => expect((await post(app, '/api/v1/system/wait', { timeout: 30 }, as)).status).toBe(200);
  /** Posts `messages` to a new session, commits it and waits for the extractor's task; returns the task result. */
  const commitSession = async (as: As, messages: { role: string; content: string }[]) => {
    const sid = (await post(app, '/api/v1/sessions', {}, as)).body.result.session_id as string;
    await post(app, `/api/v1/sessions/${sid}/messages/batch`, { messages }, as);
    const task = (await post(app, `/api/v1/sessions/${sid}/commit`, {}, as)).body.result.task_id as string;
    const done = await eventually(async () => {
      const t = (await app.request('GET', `/api/v1/tasks/${task}`, as)).body.result;
      return t?.status === 'completed' || t?.status === 'failed' ? t : null;
    });
    expect(done.status).toBe('completed');
    return done.result as { memory_uris: string[] };
  };

  it("the README's first session: the memory, nothing redundant", async () => {
    const as = devAs('quality-first', 'default');
    await seed(
      app,
      as,
      'viking://user/default/memories/preferences/editor.md',
      'Prefers vim keybindings and dark themes.',
    );
    // Directory summaries are written after the file: wait until the user root's overview mentions it.
    for (let i = 0; i < 50; i++) {
      const o = await app.request('GET', '/api/v1/content/overview?uri=viking://user/default', as);
      if (o.status === 200 && String(o.body.result).includes('vim')) break;
      await new Promise((done) => setTimeout(done, 100));
    }
    const r = await context(
      app,
      { query: 'which editor settings does the user like?', mode: 'context', max_tokens: 800 },
      as,
    );
    expect(r.status).toBe(200);
    const entries = entriesOf(r);
    expect(entries.map((e) => e.uri)).toEqual(['viking://user/default/memories/preferences/editor.md']);
    expect(entries[0]!.text).toBe('Prefers vim keybindings and dark themes.');
    expect(r.body.result.stats.redundant).toBeGreaterThanOrEqual(1);
    expect(Object.keys(r.body.result.stats).slice(-3)).toEqual(['redundant', 'weak', 'lexical_only']);
  });

  it("a new tenant's first memory passes the agent plugin's score threshold (0.35)", async () => {
    // With directory summaries counted as documents, each word of the one memory was in almost every node
    // of the tenant (the file, preferences/, memories/, the user root) and weighed next to nothing beside a
    // query word the tenant lacks ("user"): the memory scored 0.23 and the plugin's recall served nothing.
    const as = devAs('quality-threshold', 'default');
    await seed(
      app,
      as,
      'viking://user/default/memories/preferences/drinks.md',
      'Prefers green tea over coffee in the morning.',
    );
    await idle(as);
    const r = await context(
      app,
      { query: 'does the user prefer tea or coffee?', mode: 'context', purpose: 'coding', score_threshold: 0.35 },
      as,
    );
    expect(r.status).toBe(200);
    expect(urisOf(r)).toEqual(['viking://user/default/memories/preferences/drinks.md']);
  });

  it('at a small budget the best hit keeps its text when only the per-entry cap would make it a bare URI', async () => {
    const as = devAs('quality-cap', 'default');
    const dir = 'viking://user/default/memories/entities';
    await seedMany(app, as, {
      [`${dir}/postgres.md`]:
        'The billing service moved to Postgres 16 on 2026-11-20; the rollback plan is in runbooks/billing.md. '.repeat(
          3,
        ),
      ...Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`${dir}/note-${i}.md`, `Billing service note ${i}.`])),
    });
    const r = await context(
      app,
      { query: 'when did the billing service move to Postgres?', mode: 'context', max_tokens: 300 },
      as,
    );
    expect(r.status).toBe(200);
    const entries = entriesOf(r);
    expect(r.body.result.stats.per_entry_cap).toBeLessThan(80);
    expect([entries[0]!.uri, entries[0]!.detail]).toEqual([`${dir}/postgres.md`, 'abstract']);
    expect(entries[0]!.text).toContain('Postgres 16');
  });

  it('after a session commit: the memories it wrote, no directory overview that only repeats them', async () => {
    // The extractor writes dated folders and nested summaries; their overviews (`# 12 … - 02/: 02: 1 item — …`,
    // the user root's `— entities; events;`) only restate the memories, and must not take the block.
    const as = devAs('quality-commit', 'default');
    await commitSession(as, [
      { role: 'user', content: 'I just moved to Lisbon last week and started learning Portuguese.' },
      { role: 'assistant', content: 'Congratulations on the move! How are the lessons going?' },
      { role: 'user', content: 'Slowly. My tutor Ana says my nasal vowels need work. Also I prefer tea over coffee.' },
    ]);
    await idle(as);
    const r = await context(app, { query: 'where did the user move?', mode: 'context', max_tokens: 400 }, as);
    expect(r.status).toBe(200);
    const entries = entriesOf(r);
    const files = entries.filter((e) => e.uri.endsWith('.md'));
    expect(files.some((e) => e.text.includes('moved to Lisbon'))).toBe(true);
    // The dated event folders and the user root hold nothing but the one served event part: their overviews
    // only repeat it (a bare URI pointer may stay). Other folders (preferences: "tea") add facts and may serve.
    const repeats = entries.filter(
      (e) => e.detail !== 'uri' && (/\/memories\/events(\/\d+)*$/.test(e.uri) || e.uri === 'viking://user/default'),
    );
    expect(repeats.map((e) => `${e.uri} ${e.text}`)).toEqual([]);
    expect(r.body.result.stats.redundant).toBeGreaterThanOrEqual(1);
  });

  it('one remembered sentence naming three things is served once; the nodes far below the best are weak, not served', async () => {
    // The extractor quotes a sentence in the event part and in an entity file per name (each line ending in its
    // message id). Every node of a small tenant is a hit: its user root and folders score a tenth of the best.
    const as = devAs('quality-quotes', 'default');
    await seed(app, as, 'viking://resources/handbook.md', 'The deploy window is Tuesday 14:00 UTC.');
    const commit = async (user: string, assistant: string) =>
      (
        await commitSession(as, [
          { role: 'user', content: user },
          { role: 'assistant', content: assistant },
        ])
      ).memory_uris;
    const said = 'I moved from Berlin to Lisbon in March 2026 and now work remotely for Acme billing.';
    const uris = await commit(said, 'Noted, Lisbon it is.');
    expect(uris.filter((u) => u.includes('/entities/mentioned/'))).toHaveLength(3);
    await idle(as);
    const moved = await context(app, { query: 'where does the user live?', mode: 'context', max_tokens: 400 }, as);
    expect(moved.status).toBe(200);
    expect(entriesOf(moved).filter((e) => e.text.includes('from Berlin to Lisbon'))).toHaveLength(1);
    expect(moved.body.result.stats.redundant).toBeGreaterThanOrEqual(2);

    await commit(
      'We decided the billing service will migrate to Postgres 16 next sprint. Maria owns the migration.',
      'Got it: Postgres 16 migration next sprint, owner Maria.',
    );
    await idle(as);
    const body = { query: 'who owns the database migration?', mode: 'context', max_tokens: 300, explain: true };
    const r = await context(app, body, as);
    expect(r.status).toBe(200);
    const { entries, stats, explain } = r.body.result;
    expect(entriesOf(r).filter((e) => e.text.includes('Maria owns the migration'))).toHaveLength(1);
    expect(entries.some((e: { uri: string }) => e.uri.startsWith('viking://resources'))).toBe(false);
    const weak = explain.entries.filter((e: { outcome: string }) => e.outcome === 'weak');
    expect(weak.length).toBeGreaterThanOrEqual(1);
    expect(weak).toHaveLength(stats.weak);
    const served = new Set(entries.map((e: { uri: string }) => e.uri));
    expect(weak.filter((e: { uri: string }) => served.has(e.uri))).toEqual([]);
    expect(weak[0].why.at(-1)).toMatch(/^weak: score 0\.\d{3} is under 15% of the best \(0\.\d{3}\)$/);
  });

  it('a lone remembered exchange is served once at any budget: no dated folder repeats the entity quote', async () => {
    // MCP `remember` of one exchange in a new tenant: the entity files quote it, the event part holds it, and the
    // dated folder's listing repeats the event part's gist. Served at 400 tokens, the folder used to come back
    // beside the entity file after the event part was withdrawn as redundant.
    const as = devAs('quality-lone', 'default');
    await commitSession(as, [
      { role: 'user', content: 'We chose Postgres 16 for the billing service; Maria owns the migration, due Friday.' },
      { role: 'assistant', content: 'Noted: Postgres 16, Maria owns the migration, due Friday.' },
    ]);
    await idle(as);
    for (const max_tokens of [200, 400, 800, 1600]) {
      const r = await context(
        app,
        { query: 'who owns the billing migration?', mode: 'context', max_tokens, explain: true },
        as,
      );
      expect(r.status).toBe(200);
      const carrying = entriesOf(r).filter((e) => e.text.includes('Maria owns the migration'));
      expect({ max_tokens, carrying: carrying.map((e) => e.uri) }).toEqual({
        max_tokens,
        carrying: [expect.any(String)],
      });
    }
  });

  it('across turns: an entry repeating what the session was given in its last dedup_turns is not served again', async () => {
    // The ledger cools URIs; the same words under another URI (the event part quoting what an entity file
    // quotes) used to come back on the next turn, as soon as the entity file was cooled.
    const as = devAs('quality-turns', 'default');
    const M = 'viking://user/default/memories';
    const said = [
      '[user]: We decided the billing service will migrate to Postgres 16 next sprint. Maria owns the migration.',
      '[assistant]: Got it: Postgres 16 migration next sprint, owner Maria.',
    ];
    await seedMany(app, as, {
      [`${M}/entities/mentioned/postgres.md`]: `# Postgres\n${said.map((l) => `- 2026-12-02 ${l}`).join('\n')}`,
      [`${M}/events/2026/12/02/s1_p1.md`]: `# Summary\n${said[0]}\n# 2026-12-02 (Wednesday) ChatLog:\n${said[1]}`,
    });
    await idle(as);
    const sid = (await post(app, '/api/v1/sessions', {}, as)).body.result.session_id as string;
    const body = {
      query: 'who owns the Postgres migration?',
      mode: 'context',
      max_tokens: 800,
      session_id: sid,
      dedup_turns: 3,
      explain: true,
    };
    const carrying = (r: Awaited<ReturnType<typeof context>>) =>
      entriesOf(r).filter((e) => e.detail !== 'uri' && e.text.includes('Maria owns the migration'));
    const first = await context(app, body, as);
    expect(first.status).toBe(200);
    expect(carrying(first)).toHaveLength(1);
    const told = carrying(first)[0]!.uri;
    await post(app, `/api/v1/sessions/${sid}/messages`, { role: 'user', content: 'And who reviews it?' }, as);
    // Written after the first turn: new to the session.
    const review = `${M}/events/2026/12/02/s2_p1.md`;
    await seed(app, as, review, '# Summary\n[user]: Maria reviews the rollback plan of the Postgres migration.');
    await idle(as);
    const next = await context(app, body, as);
    expect(next.status).toBe(200);
    const { stats, explain } = next.body.result;
    expect(stats.dedup.cooled).toBeGreaterThanOrEqual(1);
    expect(explain.entries.find((e: { uri: string }) => e.uri === told)).toMatchObject({ outcome: 'cooled' });
    expect(carrying(next)).toEqual([]);
    const repeat = explain.entries.find(
      (e: { uri: string; outcome: string }) => e.outcome === 'redundant' && e.uri !== told && e.uri.endsWith('.md'),
    );
    expect(repeat.why.at(-1)).toMatch(/served in earlier turns of the session$/);
    // What is new still comes: the rollback review.
    expect(urisOf(next)).toContain(review);
  });

  it('explain: a note per candidate — served, redundant, excluded, cooled — bounded and consistent with entries', async () => {
    const as = devAs('quality-explain', 'default');
    const U = 'viking://user/default/memories';
    await seed(
      app,
      as,
      `${U}/events/okapi-trip.md`,
      '# Summary\nOkapi trip, 3 May.\n# 2024-05-03 ChatLog:\n[1] Ann: we saw an okapi at the zoo.\n[2] Bo: the okapi was eating leaves.',
    );
    await seed(app, as, `${U}/entities/okapi.md`, 'Okapi: the striped animal Ann saw at the zoo on 3 May.');
    await seed(app, as, `${U}/preferences/okapi-plush.md`, 'Ann wants an okapi plush toy.');
    const body = {
      query: 'okapi zoo',
      max_tokens: 1600,
      explain: true,
      exclude_uris: [`${U}/preferences/okapi-plush.md`],
    };
    const r = await context(app, body, as);
    expect(r.status).toBe(200);
    const { entries, stats, explain } = r.body.result;
    expect(Object.keys(r.body.result)).toEqual(['entries', 'rendered', 'digest', 'stats', 'explain']);
    const served = explain.entries.filter((e: { outcome: string }) => e.outcome === 'served');
    expect(served.map((e: { uri: string }) => e.uri)).toEqual(entries.map((e: { uri: string }) => e.uri));
    for (const [i, e] of served.entries()) {
      expect(e.detail).toBe(entries[i].detail);
      expect(e.score).toBe(entries[i].score);
      expect(e.origin).toBe('self');
      expect(e.why[0]).toMatch(/^served at (full|overview|abstract|uri) \(rank \d+\)$/);
    }
    const candidates = explain.entries.filter((e: { rank: number | null }) => e.rank !== null);
    expect(candidates).toHaveLength(stats.candidates);
    expect(candidates.filter((e: { outcome: string }) => e.outcome === 'redundant')).toHaveLength(stats.redundant);
    expect(candidates.filter((e: { outcome: string }) => e.outcome === 'dropped')).toHaveLength(stats.dropped);
    expect(candidates.filter((e: { outcome: string }) => e.outcome === 'weak')).toHaveLength(stats.weak);
    expect(explain.entries.find((e: { uri: string }) => e.uri === `${U}/preferences/okapi-plush.md`)).toMatchObject({
      outcome: 'excluded',
      rank: null,
    });
    expect(explain.omitted).toBe(0);
    // Every explained candidate carries its category; a user root is never a resource.
    for (const e of candidates) expect(e.uri === 'viking://user/default' ? e.category : 'memories').toBe('memories');
    // Without the flag the answer is unchanged: no explain key.
    const plain = await context(app, { ...body, explain: false }, as);
    expect(Object.keys(plain.body.result)).toEqual(['entries', 'rendered', 'digest', 'stats']);
  });

  it('a directory whose files are found ranks after every file, whatever its score', async () => {
    const as = devAs('quality-dirs', 'default');
    const day = 'viking://user/default/memories/events/2024/03/01';
    const files = [`${day}/tapir-p1.md`, `${day}/tapir-p2.md`, 'viking://user/default/memories/entities/tapir.md'];
    await seed(app, as, files[0]!, '# Summary\nFriday 1 March 2024, Ann.\n[Ann]: the tapir at the zoo had a calf.');
    await seed(
      app,
      as,
      files[1]!,
      '# Summary\nFriday 1 March 2024, Bo.\n[Bo]: the tapir calf is striped like a melon.',
    );
    await seed(app, as, files[2]!, 'Tapir: the zoo animal whose calf Ann and Bo saw.');
    type Note = { uri: string; rank: number; directory: boolean; score: number };
    const query = 'tapir calf at the zoo';
    const candidates = async (limit?: number): Promise<Note[]> => {
      const r = await context(app, { query, max_tokens: 1600, explain: true, query_expansion: 'off', limit }, as);
      expect(r.status).toBe(200);
      return r.body.result.explain.entries.filter((e: { rank: number | null }) => e.rank !== null);
    };
    // The day folder becomes a hit once its overview (listing both parts) is written.
    let all: Note[] = [];
    for (let i = 0; i < 100 && !all.some((d) => d.uri === day); i++) {
      all = await candidates();
      await new Promise((done) => setTimeout(done, 100));
    }
    expect(all.map((d) => d.uri)).toContain(day);
    for (const limit of [undefined, 3]) {
      const notes = limit ? await candidates(limit) : all;
      const lastFile = Math.max(...notes.filter((e) => !e.directory).map((e) => e.rank));
      const holding = notes.filter((x) => x.directory && files.some((f) => f.startsWith(`${x.uri}/`)));
      expect(holding.length).toBeGreaterThan(0);
      for (const d of holding) expect(d.rank).toBeGreaterThan(lastFile);
    }
    // The order is not the scores': some holding directory out-scores the last file.
    const found = all.filter((e) => !e.directory);
    const lowest = Math.min(...found.map((e) => e.score));
    expect(all.some((e) => e.directory && e.score > lowest)).toBe(true);
  });

  /**
   * Seeds a 60-turn chat log (`turns` where given, filler elsewhere) under `summary` and asks for context
   * at 300 tokens: the entry it is served as, an excerpt (overview tier). The summary, as the plain
   * overview, sets the excerpt's allowance.
   */
  const excerptOf = async (
    tenant: string,
    log: { uri: string; summary: string; day: string; filler: (i: number) => string; turns: Record<number, string> },
    query: string,
  ) => {
    const as = devAs(tenant, 'default');
    const lines = Array.from({ length: 60 }, (_, i) => log.turns[i] ?? log.filler(i));
    await seed(app, as, log.uri, `# Summary\n${log.summary}\n# ${log.day} ChatLog:\n${lines.join('\n')}\n`);
    const r = await context(app, { query, max_tokens: 300 }, as);
    expect(r.status).toBe(200);
    const entry = entriesOf(r).find((e) => e.uri === log.uri)!;
    expect(entry.detail).toBe('overview');
    return entry.text;
  };

  it('an excerpt of a long chat log: the head once, the rare word over the speaker names, the reply to a matching question', async () => {
    const turns = {
      30: '[D1:31] Bo: Where did you buy the kayak, Ann?',
      31: '[D1:32] Ann: At the harbour shop on Pier 9, last spring.',
    };
    const text = await excerptOf(
      'quality-excerpt',
      {
        uri: 'viking://user/default/memories/events/2024-06-01-kayak.md',
        summary:
          'Ann and Bo caught up on 1 June 2024. They talked about the kayak Ann bought, the weather on the coast, ' +
          'the plans for the summer, the new job Bo starts in July, and a long list of films they both want to see.',
        day: '2024-06-01',
        filler: (i) =>
          `[D1:${i + 1}] ${i % 2 ? 'Bo' : 'Ann'}: chatting about the weather and the garden, number ${i + 1}.`,
        turns,
      },
      'Where did Ann buy her kayak?',
    );
    expect(text).toContain(turns[30]);
    expect(text).toContain(turns[31]);
    expect(text.split('the kayak Ann bought').length - 1).toBeLessThanOrEqual(1);
  });

  it('a Chinese chat log: the reply after a full-width ？ question is served with it', async () => {
    const turns = { 30: '[D4:31] 李娜: 你新家的钢琴是从哪家琴行买的？', 31: '[D4:32] 王磊: 城西那家老店，上个月。' };
    const text = await excerptOf(
      'quality-excerpt-zh',
      {
        uri: 'viking://user/default/memories/events/2024-06-09-move.md',
        summary: '2024年6月9日，李娜和王磊聊了搬家、马拉松训练、公司的季度报告、夏天的旅行计划和两个人都想看的电影。',
        day: '2024-06-09',
        filler: (i) => `[D4:${i + 1}] ${i % 2 ? '王磊' : '李娜'}: 今天天气不错，我们聊聊花园，第${i + 1}句。`,
        turns,
      },
      '王磊的钢琴在哪里买的',
    );
    expect(text).toContain(turns[30]);
    expect(text).toContain(turns[31]);
  });

  it('at 800 tokens the depth reserve serves the two best ~240-token events whole', async () => {
    const as = devAs('quality-depth', 'default');
    const U = 'viking://user/default/memories/events';
    // Ten ~20-token turns: a whole event (~240 tokens) that fits twice beside the overviews only when
    // the first breadth pass stops at 320 tokens (a 40% reserve stops it at 480 and only one fits).
    const LINES = 10;
    const line = (i: number, t: number) =>
      `[D${i}:${t}] Ann: the heron by the pond stood still again, we watched it for a while, number ${t}.`;
    const files = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [
        `${U}/heron-${String(i).padStart(2, '0')}.md`,
        `# Summary\nHeron watch, part ${i}.\n# ChatLog:\n${Array.from({ length: LINES }, (_, t) => line(i, t)).join('\n')}\n`,
      ]),
    );
    await seedMany(app, as, files);
    const r = await context(app, { query: 'the heron by the pond', max_tokens: 800 }, as);
    expect(r.status).toBe(200);
    const events = entriesOf(r).filter((e) => e.uri.startsWith(`${U}/heron-`));
    expect(events.slice(0, 2).map((e) => e.detail)).toEqual(['full', 'full']);
    expect(r.body.result.stats.used_tokens).toBeLessThanOrEqual(800);
  });

  it('explain: a URI cooled by the session ledger is reported as cooled', async () => {
    const as = devAs('quality-cooled', 'default');
    await seed(app, as, 'viking://user/default/memories/entities/narwhal.md', 'Narwhal: the tusked whale Bo drew.');
    const body = {
      query: 'narwhal',
      session_id: 'explain-cool',
      dedup_turns: 3,
      query_expansion: 'off',
      explain: true,
    };
    const first = await context(app, body, as);
    expect(first.status).toBe(200);
    expect(first.body.result.entries.map((e: { uri: string }) => e.uri)).toContain(
      'viking://user/default/memories/entities/narwhal.md',
    );
    const second = await context(app, body, as);
    expect(second.status).toBe(200);
    const note = second.body.result.explain.entries.find(
      (e: { uri: string }) => e.uri === 'viking://user/default/memories/entities/narwhal.md',
    );
    expect(note).toMatchObject({ outcome: 'cooled', rank: null });
  });

  it('explain is context-only and must be a boolean', async () => {
    const list = await app.request('POST', '/api/v1/search/search', { body: { query: 'x', explain: true } });
    expect(list.status).toBe(400);
    expect(list.body.error.message).toContain("explain require mode='context'");
    const bad = await context(app, { query: 'x', explain: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_ARGUMENT');
    expect(bad.body.error.message).toContain('explain');
    // Lax booleans like the contract's other flags: "yes" is true.
    const lax = await context(app, { query: 'x', explain: 'yes' });
    expect(lax.status).toBe(200);
    expect(lax.body.result.explain).toEqual({ entries: expect.any(Array), omitted: 0, corrected: [] });
  });

  it('a misspelt question: the excerpt is focused on the corrected word, and explain names the correction', async () => {
    const as = devAs('quality-typo', 'default');
    const uri = 'viking://user/default/memories/events/notes.md';
    // A long memory (far over a 200-token entry) whose one line about the kayak sits deep in its body.
    const lines = Array.from({ length: 60 }, (_, i) => `- Note ${i}: the weekly report lists item ${i} and its owner.`);
    lines.splice(45, 0, '- The kayak trip to Lake Bled is booked for the second week of May.');
    await seed(app, as, uri, `# Notes\n${lines.join('\n')}`);
    await idle(as);
    const body = { query: 'any kayka plans?', mode: 'context', max_tokens: 200, explain: true };
    const r = await context(app, body, as);
    expect(r.status).toBe(200);
    expect(r.body.result.explain.corrected).toEqual([{ from: 'kayka', to: 'kayak' }]);
    const served = entriesOf(r).find((e) => e.uri === uri);
    expect(served?.text).toContain('The kayak trip to Lake Bled');
    // Spelt as a word nothing holds and no memory is one edit from, nothing is corrected.
    const none = await context(app, { ...body, query: 'any zqxwv plans?' }, as);
    expect(none.body.result.explain.corrected).toEqual([]);
    // /find answers keep the contract's keys only.
    const find = await post(app, '/api/v1/search/find', { query: 'kayka' }, as);
    expect(Object.keys(find.body.result).sort()).toEqual(['memories', 'resources', 'skills', 'total']);
  });
});
