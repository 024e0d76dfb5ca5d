import { estimateTokens, modelCallTokens } from './token-estimate';
import { perEntryCap } from './per-entry-cap';

describe('estimateTokens', () => {
  it.each([
    { name: 'empty string costs nothing', text: '', tokens: 0 },
    { name: '200 ASCII letters', text: 'a'.repeat(200), tokens: 50 },
    { name: '200 CJK ideographs', text: '中'.repeat(200), tokens: 300 },
    { name: 'an astral emoji counts 2', text: '😀', tokens: 2 },
    { name: 'five ASCII letters round up', text: 'abcde', tokens: 2 },
    { name: 'hiragana is wide', text: 'ひらがな', tokens: 6 },
    { name: 'hangul syllables are wide', text: '한국', tokens: 3 },
    { name: 'CJK punctuation U+3000 block is wide', text: '、。', tokens: 3 },
    { name: 'full-width forms are wide', text: 'ＡＢ', tokens: 3 },
    { name: 'astral CJK extension B is wide, not astral', text: '\u{20000}', tokens: 2 },
    { name: 'astral ideograph 1.5 + ascii 0.25 → 2', text: '\u{20000}a', tokens: 2 },
    { name: 'latin-1 accented letters are narrow', text: 'éééé', tokens: 1 },
    { name: 'a lone surrogate counts as one narrow code point', text: '\ud800', tokens: 1 },
    {
      name: 'the rendered example element (123 chars)',
      text: '<memory uri="viking://user/u1/memories/entities/ov.md" type="entities" score="0.55" detail="abstract">\nOpenViking\n</memory>',
      tokens: 31,
    },
    { name: 'a lone low surrogate counts as one narrow code point', text: 'a\udc00b', tokens: 1 },
    { name: 'a high surrogate before a non-surrogate stays alone', text: '\ud83d中', tokens: 2 },
  ])('$name', ({ text, tokens }) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it('agrees with the per-code-point definition on mixed text', () => {
    // The definition, code point by code point (docs/contract.md#token-estimate).
    const wide = (c: number) =>
      [
        [0x3400, 0x4dbf],
        [0x4e00, 0x9fff],
        [0xf900, 0xfaff],
        [0x20000, 0x2ebef],
        [0x3040, 0x30ff],
        [0x31f0, 0x31ff],
        [0xac00, 0xd7af],
        [0x1100, 0x11ff],
        [0x3130, 0x318f],
        [0xff00, 0xffef],
        [0x3000, 0x303f],
      ].some(([lo, hi]) => c >= lo && c <= hi);
    const reference = (text: string) => {
      let sum = 0;
      for (const ch of text) {
        const c = ch.codePointAt(0)!;
        sum += wide(c) ? 1.5 : c > 0xffff ? 2 : 0.25;
      }
      return Math.ceil(sum);
    };
    const pieces = [
      'a',
      'é',
      '中',
      'ひ',
      '한',
      '、',
      'Ａ',
      '\u{20000}',
      '😀',
      '\ud800',
      '\udc00',
      '\u10ff',
      '\u1100',
      '\n',
    ];
    let seed = 7;
    for (let round = 0; round < 500; round++) {
      let text = '';
      for (let i = 0; i < round % 40; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        text += pieces[seed % pieces.length];
      }
      expect(estimateTokens(text)).toBe(reference(text));
    }
  });
});

describe('perEntryCap', () => {
  it.each([
    { name: 'floors before doubling (3000/13)', maxTokens: 3000, count: 13, cap: 460 },
    { name: 'single candidate', maxTokens: 1600, count: 1, cap: 3200 },
    { name: 'no candidates counts as one', maxTokens: 100, count: 0, cap: 200 },
    { name: 'three candidates', maxTokens: 1600, count: 3, cap: 1066 },
    { name: 'never below one', maxTokens: 1, count: 50, cap: 1 },
  ])('$name', ({ maxTokens, count, cap }) => {
    expect(perEntryCap(maxTokens, count)).toBe(cap);
  });
});

describe('modelCallTokens', () => {
  it("counts the provider's usage when reported, else the estimate of the texts sent and answered", () => {
    expect(modelCallTokens({ prompt_tokens: 100, completion_tokens: 10 }, ['ignored'])).toBe(110);
    expect(modelCallTokens(null, ['abcd', '12345678', '猫'])).toBe(
      estimateTokens('abcd') + estimateTokens('12345678') + estimateTokens('猫'),
    );
    expect(modelCallTokens(undefined, [])).toBe(0);
  });
});
