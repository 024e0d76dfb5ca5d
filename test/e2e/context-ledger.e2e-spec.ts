// docs/contract.md#dedup-ledger: the cross-turn dedup ledger. Muninn keeps it as a Redis record per
// (account, user, session), readable at GET /api/v1/sessions/{id}/recall-log (architecture.md
// "Deliberate differences"). Pre-seeded ledgers are written to that Redis key directly; the turn clock
// is advanced by posting messages. Dev mode: ROOT, default/default.
import { startTestApp, storeModes, TestApp } from '@app/testing';
import { context, entriesOf, LedgerRedis, seedMany, urisOf } from './context-support';

const U = 'viking://user/default';
const STRICT = { filter: { op: 'must', field: 'level', conds: [2] }, score_threshold: 0.25 };
const H = `${U}/memories/entities/heliotrope.md`;
const R = `${U}/memories/entities/rook-r.md`;
const O = `${U}/memories/entities/rook-o.md`;
const X = `${U}/memories/entities/xerus.md`;
const P = `${U}/memories/entities/pika.md`;
const QUOLLS = [
  `${U}/memories/entities/quoll-a.md`,
  `${U}/memories/entities/quoll-b.md`,
  `${U}/memories/entities/quoll-c.md`,
];
const BONGO = `${U}/memories/entities/bongo.md`;
const JERBOAS = [1, 2, 3].map((i) => `${U}/memories/entities/jerboa-${i}.md`);
const JERBOA_NOTES = [
  'a desert rodent that hops on long hind legs across the dunes at night. ',
  'kept in the north enclosure, eats seeds and beetles, sleeps in a burrow by day. ',
  'the smallest of the troop, tagged in spring, weighs thirty grams and is shy. ',
];
const ghost = (name: string) => `${U}/memories/entities/ghost-${name}.md`;

describe.each(storeModes())('context dedup ledger (store: %s)', (store) => {
  let app: TestApp;
  let ledger: LedgerRedis;

  const ask = async (session_id: string, query: string, extra: Record<string, unknown> = {}) => {
    const r = await context(app, { query, session_id, dedup_turns: 5, query_expansion: 'off', ...STRICT, ...extra });
    expect(r.status).toBe(200);
    return r;
  };
  const recallLog = async (sid: string) => {
    const r = await app.request('GET', `/api/v1/sessions/${sid}/recall-log`);
    expect(r.status).toBe(200);
    return r.body.result;
  };
  const createSession = async (sid: string) => {
    const r = await app.request('POST', '/api/v1/sessions', { body: { session_id: sid } });
    expect(r.status).toBe(200);
  };
  /** Creates the session and advances its message clock to `clock`. */
  const sessionAt = async (sid: string, clock: number) => {
    await createSession(sid);
    await addMessages(sid, clock);
  };
  const addMessages = async (sid: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const r = await app.request('POST', `/api/v1/sessions/${sid}/messages`, {
        body: { role: i % 2 ? 'assistant' : 'user', content: `message ${i}` },
      });
      expect(r.status).toBe(200);
    }
  };

  beforeAll(async () => {
    app = await startTestApp({ store });
    ledger = new LedgerRedis(app);
    await seedMany(
      app,
      {},
      {
        [H]: 'Heliotrope the parrot repeats every word.',
        [R]: 'Rook R guards the queen side.',
        [O]: 'Rook O guards the king side.',
        [X]: 'The xerus digs burrows.',
        [P]: 'The pika stores hay for winter.',
        [QUOLLS[0]]: 'Quoll A hunts at night.',
        [QUOLLS[1]]: 'Quoll B sleeps in a log.',
        [QUOLLS[2]]: 'Quoll C climbs trees.',
        [BONGO]: 'The bongo antelope has white stripes.',
        // Three distinct texts (near-copies would be withdrawn as redundant, docs/context.md "Redundancy").
        ...Object.fromEntries(
          JERBOAS.map((uri, i) => [uri, `Jerboa ${i + 1}: ${JERBOA_NOTES[i]!.repeat(3)}`.slice(0, 200)]),
        ),
      },
    );
  });

  afterAll(async () => {
    await ledger.close();
    await app.close();
  });

  it('a served hit is recorded at the current turn and cooled on repeat, until dedup_turns messages pass', async () => {
    await createSession('s48');
    const first = await ask('s48', 'heliotrope', { dedup_turns: 3 });
    expect(urisOf(first)).toEqual([H]);
    expect(first.body.result.stats.dedup).toEqual({ turns: 3, status: 'new', cooled: 0, turn: 0 });
    expect(await recallLog('s48')).toEqual({
      version: 1,
      updated_turn: 0,
      entries: { [H]: { turn: 0, detail: 'abstract' } },
    });
    expect(await ledger.get('default', 'default', 's48')).toEqual(await recallLog('s48'));

    const repeat = await ask('s48', 'heliotrope', { dedup_turns: 3 });
    expect(repeat.body.result.entries).toEqual([]);
    expect(repeat.body.result.rendered).toBe('');
    expect(repeat.body.result.stats).toMatchObject({
      excluded: 1,
      dedup: { turns: 3, status: 'ok', cooled: 1, turn: 0 },
    });

    await addMessages('s48', 2);
    const turn2 = await ask('s48', 'heliotrope', { dedup_turns: 3 });
    expect(turn2.body.result.stats).toMatchObject({ excluded: 1, dedup: { cooled: 1, turn: 2 } });
    await addMessages('s48', 1);
    const turn3 = await ask('s48', 'heliotrope', { dedup_turns: 3 });
    expect(urisOf(turn3)).toEqual([H]);
    expect(turn3.body.result.stats.dedup).toEqual({ turns: 3, status: 'ok', cooled: 0, turn: 3 });
    expect((await recallLog('s48')).entries[H]).toEqual({ turn: 3, detail: 'abstract' });
  });

  it('an unknown session id is created on the first context request, with a ledger that later messages keep', async () => {
    const missing = await app.request('GET', '/api/v1/sessions/s49-fresh');
    expect(missing.status).toBe(404);
    expect(await recallLog('s49-fresh')).toBeNull();
    const r = await ask('s49-fresh', 'heliotrope', { dedup_turns: 3 });
    expect(urisOf(r)).toEqual([H]);
    expect(r.body.result.stats.dedup).toEqual({ turns: 3, status: 'new', cooled: 0, turn: 0 });
    const created = await app.request('GET', '/api/v1/sessions/s49-fresh');
    expect(created.status).toBe(200);
    expect(created.body.result).toMatchObject({ session_id: 's49-fresh', message_count: 0 });
    const log = await recallLog('s49-fresh');
    expect(log.entries).toEqual({ [H]: { turn: 0, detail: 'abstract' } });
    const msg = await app.request('POST', '/api/v1/sessions/s49-fresh/messages', {
      body: { role: 'user', content: 'thanks' },
    });
    expect(msg.status).toBe(200);
    expect((await app.request('GET', '/api/v1/sessions/s49-fresh/messages')).body.result).toEqual([
      expect.objectContaining({ role: 'user' }),
    ]);
    expect(await recallLog('s49-fresh')).toEqual(log);
    const next = await ask('s49-fresh', 'heliotrope', { dedup_turns: 3 });
    expect(next.body.result.stats.dedup).toEqual({ turns: 3, status: 'ok', cooled: 1, turn: 1 });
    expect(next.body.result.entries).toEqual([]);
  });

  it('dedup_turns 0 with expansion off leaves the session alone (status off, nothing created)', async () => {
    const r = await ask('s50-untouched', 'heliotrope', { dedup_turns: 0 });
    expect(urisOf(r)).toEqual([H]);
    expect(r.body.result.stats.dedup).toEqual({ turns: 0, status: 'off', cooled: 0, turn: null });
    expect((await app.request('GET', '/api/v1/sessions/s50-untouched')).status).toBe(404);
    expect(await recallLog('s50-untouched')).toBeNull();
  });

  describe('pre-seeded ledgers', () => {
    it('at clock 10 with dedup_turns 5, a record from turn 8 is cooled and one from turn 2 is not', async () => {
      await sessionAt('s51-window', 10);
      await ledger.put('default', 'default', 's51-window', {
        version: 1,
        updated_turn: 8,
        entries: { [R]: { turn: 8, detail: 'abstract' }, [O]: { turn: 2, detail: 'abstract' } },
      });
      const r = await ask('s51-window', 'rook');
      expect(urisOf(r)).toEqual([O]);
      expect(r.body.result.stats).toMatchObject({
        excluded: 1,
        searched: { all: 2 },
        dedup: { turns: 5, status: 'ok', cooled: 1, turn: 10 },
      });
      expect(await recallLog('s51-window')).toEqual({
        version: 1,
        updated_turn: 10,
        entries: { [R]: { turn: 8, detail: 'abstract' }, [O]: { turn: 10, detail: 'abstract' } },
      });
    });

    it('a record ahead of the clock (turn 99 at clock 3) is expired: not cooled, and pruned on the next write', async () => {
      await sessionAt('s51-ahead', 3);
      await ledger.put('default', 'default', 's51-ahead', {
        version: 1,
        updated_turn: 99,
        entries: { [X]: { turn: 99 }, [ghost('ahead')]: { turn: 99 } },
      });
      const r = await ask('s51-ahead', 'xerus');
      expect(urisOf(r)).toEqual([X]);
      expect(r.body.result.stats).toMatchObject({ excluded: 0, dedup: { status: 'ok', cooled: 0, turn: 3 } });
      expect(await recallLog('s51-ahead')).toEqual({
        version: 1,
        updated_turn: 3,
        entries: { [X]: { turn: 3, detail: 'abstract' } },
      });
    });

    it('a bare-URI record is never cooled', async () => {
      await sessionAt('s51-bare', 10);
      await ledger.put('default', 'default', 's51-bare', {
        version: 1,
        updated_turn: 9,
        entries: { [P]: { turn: 9, detail: 'uri' } },
      });
      const r = await ask('s51-bare', 'pika');
      expect(urisOf(r)).toEqual([P]);
      expect(r.body.result.stats.dedup).toMatchObject({ status: 'ok', cooled: 0, turn: 10 });
      expect((await recallLog('s51-bare')).entries[P]).toEqual({ turn: 10, detail: 'abstract' });
    });

    it('malformed records are ignored and gone after the next write', async () => {
      await sessionAt('s51-malformed', 10);
      await ledger.put('default', 'default', 's51-malformed', {
        version: 1,
        updated_turn: 9,
        entries: {
          [QUOLLS[0]]: { turn: 'x' },
          [QUOLLS[1]]: { turn: null },
          [QUOLLS[2]]: 'served',
          [ghost('x')]: { turn: 'x' },
          [ghost('null')]: { turn: null },
          [ghost('str')]: 'served',
          [ghost('kept')]: { turn: '9', detail: 'abstract' },
        },
      });
      const r = await ask('s51-malformed', 'quoll');
      expect(urisOf(r).sort()).toEqual(QUOLLS);
      expect(r.body.result.stats).toMatchObject({ excluded: 0, dedup: { status: 'ok', cooled: 1, turn: 10 } });
      const log = await recallLog('s51-malformed');
      expect(Object.keys(log.entries).sort()).toEqual([ghost('kept'), ...QUOLLS].sort());
      for (const q of QUOLLS) expect(log.entries[q]).toEqual({ turn: 10, detail: 'abstract' });
    });

    it('an unparsable ledger loads as new and is replaced by a valid one', async () => {
      await sessionAt('s51-garbage', 4);
      await ledger.put('default', 'default', 's51-garbage', '{"version": 1, "entries": {');
      const r = await ask('s51-garbage', 'pika');
      expect(urisOf(r)).toEqual([P]);
      expect(r.body.result.stats.dedup).toEqual({ turns: 5, status: 'new', cooled: 0, turn: 4 });
      expect(await recallLog('s51-garbage')).toEqual({
        version: 1,
        updated_turn: 4,
        entries: { [P]: { turn: 4, detail: 'abstract' } },
      });
    });
  });

  it('at clock 40 a turn-1 record falls out of the 4·dedup_turns window on the next write', async () => {
    await sessionAt('s52', 40);
    await ledger.put('default', 'default', 's52', {
      version: 1,
      updated_turn: 1,
      entries: { [`${U}/memories/entities/aardvark.md`]: { turn: 1, detail: 'abstract' } },
    });
    const r = await ask('s52', 'bongo');
    expect(urisOf(r)).toEqual([BONGO]);
    expect(r.body.result.stats.dedup).toEqual({ turns: 5, status: 'ok', cooled: 0, turn: 40 });
    expect(await recallLog('s52')).toEqual({
      version: 1,
      updated_turn: 40,
      entries: { [BONGO]: { turn: 40, detail: 'abstract' } },
    });
  });

  it('a URI that lost to the budget (served bare) is served again on the next turn', async () => {
    await createSession('s53');
    const first = await ask('s53', 'jerboa', { max_tokens: 64 });
    const bare = entriesOf(first)
      .filter((e) => e.detail === 'uri')
      .map((e) => e.uri);
    expect(bare.length).toBeGreaterThanOrEqual(1);
    expect(entriesOf(first).every((e) => e.detail === 'uri')).toBe(true);
    const log = await recallLog('s53');
    for (const uri of bare) expect(log.entries[uri]).toEqual({ turn: 0, detail: 'uri' });
    await addMessages('s53', 1);
    const next = await ask('s53', 'jerboa', { max_tokens: 64 });
    expect(next.body.result.stats.dedup).toEqual({ turns: 5, status: 'ok', cooled: 0, turn: 1 });
    expect(next.body.result.stats.excluded).toBe(0);
    expect(urisOf(next)).toEqual(expect.arrayContaining(bare));
    // With room, the same URIs are served for real, and then they do cool.
    const roomy = await ask('s53', 'jerboa');
    expect(entriesOf(roomy).map((e) => e.detail)).toEqual(['abstract', 'abstract', 'abstract']);
    const cooled = await ask('s53', 'jerboa');
    expect(cooled.body.result.stats.dedup.cooled).toBe(3);
    expect(cooled.body.result.entries).toEqual([]);
  });
});
