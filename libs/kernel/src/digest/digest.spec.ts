import { classifyRewrite, rewriteEnabled } from './rewrite-outcome';
import { citedUris, DIGEST_HEADER, normalizeDigest } from './normalize-digest';

const A = 'viking://user/u/memories/events/a.md';
const B = 'viking://user/u/memories/entities/b.md';

describe('normalizeDigest', () => {
  it.each([
    {
      name: 'star bullet rewritten to a dash',
      raw: `* fact source: ${A}`,
      valid: [A],
      out: `Memory digest:\n- fact source: ${A}`,
    },
    { name: 'Chinese citation marker', raw: `- 事实 来源：${A}`, valid: [A], out: `Memory digest:\n- 事实 来源：${A}` },
    { name: 'unserved citation dropped', raw: '- fact source: viking://resources/other.md', valid: [A], out: '' },
    { name: 'bullet without a citation dropped', raw: '- just a fact', valid: [A], out: '' },
    { name: 'trailing period invalidates the citation', raw: `- fact source: ${A}.`, valid: [A], out: '' },
    {
      name: 'closing delimiters end a citation',
      raw: `- fact (source: ${A})`,
      valid: [A],
      out: `Memory digest:\n- fact (source: ${A})`,
    },
    { name: 'every citation must be served', raw: `- fact ${A} and viking://x`, valid: [A], out: '' },
    {
      name: 'non-bullet lines ignored',
      raw: `Here you go:\n- fact source: ${A}\nThanks`,
      valid: [A],
      out: `Memory digest:\n- fact source: ${A}`,
    },
    { name: 'marker needs whitespace after it', raw: `-fact ${A}`, valid: [A], out: '' },
    {
      name: 'indented bullets and extra spaces normalised',
      raw: `   *    fact ${A}   `,
      valid: [A],
      out: `Memory digest:\n- fact ${A}`,
    },
    {
      name: 'max bullets respected',
      raw: `- one ${A}\n- two ${B}`,
      valid: [A, B],
      max: 1,
      out: `Memory digest:\n- one ${A}`,
    },
    {
      name: 'max bullets below one means one',
      raw: `- one ${A}\n- two ${B}`,
      valid: [A, B],
      max: 0,
      out: `Memory digest:\n- one ${A}`,
    },
    {
      name: 'no provenance check without valid URIs',
      raw: '- x viking://anything',
      valid: null,
      out: 'Memory digest:\n- x viking://anything',
    },
    { name: 'empty valid list rejects every bullet', raw: `- x ${A}`, valid: [], out: '' },
    { name: 'NO_RELEVANT_MEMORY in any case', raw: '  no_relevant_memory ', valid: [A], out: '' },
    { name: 'empty answer', raw: '', valid: [A], out: '' },
    { name: 'null answer', raw: null, valid: [A], out: '' },
  ])('$name', ({ raw, valid, max, out }) => {
    expect(normalizeDigest(raw, max ?? 6, valid)).toBe(out);
  });

  it('cuts bullets to 500 characters before looking for citations', () => {
    const long = `- ${'x'.repeat(520)} source: ${A}`;
    expect(normalizeDigest(long, 6, [A])).toBe('');
    const fits = `- ${'x'.repeat(400)} ${A} ${'y'.repeat(200)}`;
    const out = normalizeDigest(fits, 6, [A]);
    expect(Array.from(out.split('\n')[1]!)).toHaveLength(500);
  });

  it('has the Muninn header and finds bilingual citations', () => {
    expect(DIGEST_HEADER).toBe('Memory digest:');
    expect(citedUris(`a 来源：${A}, source: ${B}<`)).toEqual([`${A},`, B]);
  });
});

describe('classifyRewrite', () => {
  it.each([
    { name: 'ok', raw: `- fact ${A}`, status: 'ok', digest: `Memory digest:\n- fact ${A}` },
    { name: 'no_relevant', raw: 'NO_RELEVANT_MEMORY', status: 'no_relevant', digest: '' },
    { name: 'blank answer fails', raw: '', status: 'failed', digest: '' },
    { name: 'prose answer fails', raw: 'I could not produce a cited digest.', status: 'failed', digest: '' },
    {
      name: 'quoting the sentinel inside bullets is not no_relevant',
      raw: '- NO_RELEVANT_MEMORY',
      status: 'failed',
      digest: '',
    },
  ])('$name', ({ raw, status, digest }) => {
    expect(classifyRewrite(raw, 6, [A])).toEqual({ digest, status });
  });

  it.each([
    { name: 'true', mode: true, planner: false, on: true },
    { name: 'false', mode: false, planner: true, on: false },
    { name: 'auto with planner', mode: 'auto' as const, planner: true, on: true },
    { name: 'auto without planner', mode: 'auto' as const, planner: false, on: false },
  ])('rewriteEnabled: $name', ({ mode, planner, on }) => {
    expect(rewriteEnabled(mode, planner)).toBe(on);
  });
});
