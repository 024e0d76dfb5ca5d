import { parsePlannerQueries } from './planner-queries';

describe('parsePlannerQueries', () => {
  it.each([
    { name: 'object with queries', raw: '{"queries": ["a", "b"]}', out: ['a', 'b'] },
    { name: 'bare array', raw: '["a", " b ", ""]', out: ['a', 'b'] },
    {
      name: 'array of query objects',
      raw: '[{"query": "a", "intent": "x"}, {"text": "b"}, {"nope": 1}]',
      out: ['a', 'b'],
    },
    { name: 'object with another array field', raw: '{"search_queries": ["a"]}', out: ['a'] },
    { name: 'fenced JSON', raw: 'Sure:\n```json\n{"queries": ["a"]}\n```', out: ['a'] },
    { name: 'fence tagged JSON in capitals', raw: '```JSON {"queries": ["a"]} ``` done', out: ['a'] },
    { name: 'untagged fence', raw: 'x ```\n["a", "b"]\n``` y', out: ['a', 'b'] },
    {
      name: 'an unclosed fence and a long run of spaces: one query per line',
      raw: `\`\`\`json${' '.repeat(100_000)}\nfirst\nsecond`,
      out: ['first', 'second'],
    },
    { name: 'JSON inside prose', raw: 'Here you go: {"queries": ["a", "b"]} hope it helps', out: ['a', 'b'] },
    { name: 'empty list', raw: '{"queries": []}', out: [] },
    {
      name: 'numbered lines',
      raw: 'Queries:\n1. first query\n2) "second query"',
      out: ['first query', 'second query'],
    },
    { name: 'bulleted lines', raw: '- a\n* b\n• c', out: ['a', 'b', 'c'] },
    { name: 'blank answer', raw: '   ', out: [] },
    { name: 'JSON scalar that is not a string', raw: '42', out: [] },
  ])('$name', ({ raw, out }) => {
    expect(parsePlannerQueries(raw)).toEqual(out);
  });

  it('caps the count and drops over-long queries', () => {
    expect(parsePlannerQueries(JSON.stringify(Array.from({ length: 20 }, (_, i) => `q${i}`)))).toHaveLength(10);
    expect(parsePlannerQueries(JSON.stringify(['x'.repeat(501), 'ok']))).toEqual(['ok']);
  });
});
