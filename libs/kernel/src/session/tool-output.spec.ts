import { codePointLength, cutCodePoints, MessagePart, planToolOutputs, searchToolResult, toolOutputPreview } from '..';

const tool = (out: string, extra: MessagePart = {}): MessagePart => ({
  type: 'tool',
  tool_id: 't',
  tool_name: 'read',
  tool_output: out,
  ...extra,
});
const limits = { thresholdChars: 100, turnBudgetChars: 250, previewChars: 10 };

describe('tool output externalisation', () => {
  it.each([
    ['ascii', 'abc', 3],
    ['astral emoji counts once', 'a😀b', 3],
    ['lone surrogate counts once', 'a\ud800b', 3],
    ['empty', '', 0],
  ])('code point length: %s', (_name, s, n) => {
    expect(codePointLength(s)).toBe(n);
    expect(Array.from(s)).toHaveLength(n);
  });

  it('head never splits a surrogate pair', () => {
    expect(cutCodePoints('😀😀😀', 2)).toBe('😀😀');
    expect(cutCodePoints('ab', 5)).toBe('ab');
  });

  it('an output over the threshold is picked as single_threshold; small ones stay inline', () => {
    const picks = planToolOutputs([[tool('x'.repeat(101)), tool('y'.repeat(100))]], limits);
    expect(picks).toEqual([{ message: 0, part: 0, reason: 'single_threshold', originalChars: 101 }]);
  });

  it('the turn budget picks the largest remaining outputs, across the messages of the turn, until it fits', () => {
    // 900 + 1000 + 50 > 1500: the largest (in the second message) goes, then 900 + 50 + its preview fits.
    const big = { ...limits, turnBudgetChars: 2000 };
    expect(planToolOutputs([[tool('a'.repeat(90))], [tool('b'.repeat(95))]], big)).toEqual([]);
    const tight = { thresholdChars: 10_000, turnBudgetChars: 1500, previewChars: 10 };
    const picks = planToolOutputs([[tool('a'.repeat(900))], [tool('b'.repeat(1000)), tool('c'.repeat(50))]], tight);
    expect(picks).toEqual([{ message: 1, part: 0, reason: 'turn_budget', originalChars: 1000 }]);
  });

  it('an output no longer than its preview is never picked for the budget; parts carrying a ref are skipped', () => {
    const tiny = { thresholdChars: 10_000, turnBudgetChars: 10, previewChars: 10 };
    expect(planToolOutputs([[tool('a'.repeat(200))]], tiny)).toEqual([]);
    expect(planToolOutputs([[tool('x'.repeat(500), { tool_output_ref: 'viking://x' })]], limits)).toEqual([]);
    expect(planToolOutputs([[{ type: 'text', text: 'x'.repeat(500) }]], limits)).toEqual([]);
  });

  it('the preview is the head plus a line naming the ref, size and digest', () => {
    const p = toolOutputPreview('😀'.repeat(50), {
      ref: 'viking://user/u/sessions/s/tool-results/tr_1',
      originalChars: 50,
      previewChars: 5,
      sha256: 'ab',
      reason: 'single_threshold',
    });
    expect(p.startsWith('😀'.repeat(5) + '\n')).toBe(true);
    expect(p).toContain('showing 5 of 50 characters');
    expect(p).toContain('viking://user/u/sessions/s/tool-results/tr_1');
  });
});

describe('tool result search', () => {
  it.each([
    ['case-insensitive, offsets in code points', '😀 Error here; ERROR there', 'error', [2, 14]],
    ['no overlap', 'aaaa', 'aa', [0, 2]],
    ['KMP border', 'abababcab', 'ababc', [2]],
    ['regex characters are literal', 'a.*b a.*b', '.*', [1, 6]],
    ['not found', 'abc', 'x', []],
    ['empty query', 'abc', '', []],
  ])('%s', (_name, content, q, offsets) => {
    expect(searchToolResult(content, q, { limit: 10, contextChars: 0 }).map((m) => m.offset)).toEqual(offsets);
  });

  it('snippets carry context on both sides; limit stops early', () => {
    const m = searchToolResult('xx😀needle😀yy needle', 'NEEDLE', { limit: 1, contextChars: 2 });
    expect(m).toEqual([{ offset: 3, snippet: 'x😀needle😀y' }]);
  });

  it('a long repetitive haystack and query stay linear (no backtracking blow-up)', () => {
    const hay = 'a'.repeat(200_000);
    const q = 'a'.repeat(999) + 'b';
    expect(searchToolResult(hay, q, { limit: 5, contextChars: 10 })).toEqual([]);
  });
});
