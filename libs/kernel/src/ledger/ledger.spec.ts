import { InMemoryLedgerStore } from './in-memory-ledger-store';
import { cooledUris, parseLedger, recordServed, recordTurn, turnClock } from './recall-ledger';

const doc = (entries: Record<string, unknown>) => ({ version: 1, updated_turn: 0, entries });

describe('parseLedger', () => {
  it.each([
    { name: 'absent → new', raw: null, out: { status: 'new', data: {} } },
    { name: 'invalid JSON → new', raw: '{not json', out: { status: 'new', data: {} } },
    { name: 'empty string → ok, empty', raw: '', out: { status: 'ok', data: {} } },
    { name: 'JSON array → ok, empty', raw: '[1,2]', out: { status: 'ok', data: {} } },
    { name: 'JSON null → ok, empty', raw: 'null', out: { status: 'ok', data: {} } },
    {
      name: 'object → ok',
      raw: '{"version":1,"entries":{}}',
      out: { status: 'ok', data: { version: 1, entries: {} } },
    },
  ])('$name', ({ raw, out }) => {
    expect(parseLedger(raw)).toEqual(out);
  });
});

describe('recordTurn', () => {
  it.each([
    { name: 'integer', record: { turn: 8 }, out: 8 },
    { name: 'missing turn → 0', record: { detail: 'full' }, out: 0 },
    { name: 'numeric string', record: { turn: '7' }, out: 7 },
    { name: 'float truncates', record: { turn: 8.9 }, out: 8 },
    { name: 'non-numeric string', record: { turn: 'x' }, out: null },
    { name: 'null turn', record: { turn: null }, out: null },
    { name: 'non-object record', record: 'served', out: null },
    { name: 'array record', record: [3], out: null },
  ])('$name', ({ record, out }) => {
    expect(recordTurn(record)).toBe(out);
  });
});

describe('turnClock', () => {
  it.each([
    { name: 'meta counter ahead of live messages', total: 40, live: 12, out: 40 },
    { name: 'live messages ahead of a legacy counter', total: null, live: 3, out: 3 },
    { name: 'unparsable counter', total: 'many', live: 2, out: 2 },
    { name: 'fresh session', total: 0, live: 0, out: 0 },
  ])('$name', ({ total, live, out }) => {
    expect(turnClock(total, live)).toBe(out);
  });
});

describe('cooledUris', () => {
  it.each([
    { name: 'R cooled, O expired', data: doc({ R: { turn: 8 }, O: { turn: 2 } }), turn: 10, turns: 5, out: ['R'] },
    { name: 'a record ahead of the clock is expired', data: doc({ X: { turn: 99 } }), turn: 3, turns: 5, out: [] },
    { name: 'bare-URI records never cool', data: doc({ P: { turn: 9, detail: 'uri' } }), turn: 10, turns: 5, out: [] },
    {
      name: 'unusable records ignored',
      data: doc({ A: { turn: 'x' }, B: { turn: null }, C: 'served', D: { turn: 9, detail: 'abstract' } }),
      turn: 10,
      turns: 5,
      out: ['D'],
    },
    { name: 'served at 0 with 3 turns: cooled at 0', data: doc({ H: { turn: 0 } }), turn: 0, turns: 3, out: ['H'] },
    { name: 'served at 0 with 3 turns: cooled at 2', data: doc({ H: { turn: 0 } }), turn: 2, turns: 3, out: ['H'] },
    { name: 'served at 0 with 3 turns: free at 3', data: doc({ H: { turn: 0 } }), turn: 3, turns: 3, out: [] },
    { name: 'missing turn counts as turn 0', data: doc({ M: { detail: 'full' } }), turn: 1, turns: 2, out: ['M'] },
    { name: 'entries not an object', data: { entries: ['x'] }, turn: 1, turns: 2, out: [] },
    { name: 'zero turns cools nothing', data: doc({ H: { turn: 1 } }), turn: 1, turns: 0, out: [] },
  ])('$name', ({ data, turn, turns, out }) => {
    expect(cooledUris(data, turn, turns)).toEqual(out);
  });
});

describe('recordServed', () => {
  it('upserts at the current turn and drops future and unusable records', () => {
    const data = doc({
      X: { turn: 99 },
      A: { turn: 'x' },
      B: { turn: null },
      C: 'served',
      K: { turn: 2, detail: 'full' },
    });
    expect(
      recordServed(
        data,
        [
          { uri: 'H', detail: 'abstract' },
          { uri: 'U', detail: 'uri' },
        ],
        3,
        5,
      ),
    ).toEqual({
      version: 1,
      updated_turn: 3,
      entries: { K: { turn: 2, detail: 'full' }, H: { turn: 3, detail: 'abstract' }, U: { turn: 3, detail: 'uri' } },
    });
  });

  it('clock 40 with 5 turns prunes a record from turn 1', () => {
    expect(recordServed(doc({ A: { turn: 1 } }), [{ uri: 'B', detail: 'full' }], 40, 5)).toEqual({
      version: 1,
      updated_turn: 40,
      entries: { B: { turn: 40, detail: 'full' } },
    });
  });

  it('keeps the window edge [turn - 4*turns, turn]', () => {
    const out = recordServed(doc({ edge: { turn: 20 }, before: { turn: 19 } }), [], 40, 5);
    expect(Object.keys(out.entries)).toEqual(['edge']);
  });

  it('keeps the 500 most recent records', () => {
    const entries = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`u${i}`, { turn: 1000 - (i % 100) }]));
    const out = recordServed(doc(entries), [], 1000, 100);
    const kept = Object.values(out.entries) as Array<{ turn: number }>;
    expect(kept).toHaveLength(500);
    expect(Math.min(...kept.map((r) => r.turn))).toBe(917);
    expect(Object.keys(out.entries).slice(0, 3)).toEqual(['u0', 'u100', 'u200']);
  });

  it('a URI served bare is served again next turn, then cools once served with content', () => {
    let data: Record<string, unknown> = {};
    data = { ...recordServed(data, [{ uri: 'L', detail: 'uri' }], 4, 5) };
    expect(cooledUris(data, 6, 5)).toEqual([]);
    data = { ...recordServed(data, [{ uri: 'L', detail: 'abstract' }], 6, 5) };
    expect(cooledUris(data, 8, 5)).toEqual(['L']);
  });
});

describe('InMemoryLedgerStore', () => {
  it('reads back what was written until the TTL passes', async () => {
    let now = 1_000;
    const store = new InMemoryLedgerStore(() => now);
    expect(await store.read('k')).toBeNull();
    await store.write('k', '{"version":1}', 60);
    expect(await store.read('k')).toBe('{"version":1}');
    now += 59_999;
    expect(await store.read('k')).toBe('{"version":1}');
    now += 1;
    expect(await store.read('k')).toBeNull();
  });

  it('round-trips a ledger through parse, cool and record', async () => {
    const store = new InMemoryLedgerStore();
    const first = parseLedger(await store.read('s'));
    expect(first.status).toBe('new');
    await store.write('s', JSON.stringify(recordServed(first.data, [{ uri: 'H', detail: 'full' }], 2, 3)), 3600);
    const second = parseLedger(await store.read('s'));
    expect(second.status).toBe('ok');
    expect(cooledUris(second.data, 4, 3)).toEqual(['H']);
  });
});
