import { analyze } from './text-analyzer';

const MB = 1 << 20;

describe('analyze', () => {
  it('keeps identifiers whole and words stemmed', () => {
    const a = analyze('Painting src/app.ts at 10:30');
    expect(a.terms.tokens).toEqual(expect.arrayContaining(['src/app.ts', 'paint', 'app', 'ts']));
  });

  // Each of these took minutes with the former identifier regex (quadratic in one word's length).
  it.each([
    { name: 'one 1 MB word', text: 'a'.repeat(MB), term: 'a'.repeat(MB) },
    { name: 'one 1 MB CJK run', text: '咖啡'.repeat(MB / 2), term: '咖啡' },
    { name: '1 MB of identifiers', text: 'x.y '.repeat(MB / 4), term: 'x.y' },
  ])('$name', ({ text, term }) => {
    expect(analyze(text).terms.tokens.includes(term)).toBe(true);
  });
});
