import { KernelError } from '@app/kernel';
import { ndjsonLines } from './ndjson-lines';

const bounds = { maxBytes: 1000, maxLineBytes: 20 };

async function collect(chunks: (Buffer | string)[], b = bounds) {
  const out = [];
  for await (const l of ndjsonLines(chunks, b)) out.push(l);
  return out;
}

async function refusal(chunks: (Buffer | string)[], b = bounds) {
  try {
    await collect(chunks, b);
  } catch (e) {
    if (e instanceof KernelError) return { code: e.code, field: e.details?.field };
    throw e;
  }
  throw new Error('not refused');
}

describe('ndjsonLines', () => {
  it('splits lines across chunks, numbers blank lines, drops CR and keeps a last line without newline', async () => {
    const lines = await collect(['{"a"', ':1}\r\n\n  \n{"b":2}\n{"c', '":3}']);
    expect(lines.map((l) => [l.line, l.text])).toEqual([
      [1, '{"a":1}'],
      [4, '{"b":2}'],
      [5, '{"c":3}'],
    ]);
  });

  it('decodes a character split between chunks, and refuses invalid UTF-8 naming the line', async () => {
    const dragon = Buffer.from('"🐉"\n', 'utf8');
    const lines = await collect([dragon.subarray(0, 2), dragon.subarray(2)]);
    expect(lines[0].text).toBe('"🐉"');
    expect(lines[0].bytes).toBe(6);
    expect(await refusal([Buffer.from('{}\n'), Buffer.from([0x22, 0xff, 0x22, 0x0a])])).toEqual({
      code: 'INVALID_ARGUMENT',
      field: 'line 2',
    });
  });

  it('refuses a line over its bound and a body over its bound (413, naming which)', async () => {
    expect(await refusal(['{}\n', 'x'.repeat(15), 'y'.repeat(15), '\n'])).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      field: 'line 2',
    });
    expect(await refusal(Array(200).fill('{}\n'), { maxBytes: 100, maxLineBytes: 20 })).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      field: 'body',
    });
  });
});
