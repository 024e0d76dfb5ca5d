import { estimateTokens } from './token-estimate';
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
  ])('$name', ({ text, tokens }) => {
    expect(estimateTokens(text)).toBe(tokens);
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
