import { correctable, spellingVariants } from './spelling-variants';

describe('spellingVariants', () => {
  it('holds the word back from each kind of single edit', () => {
    const v = spellingVariants('campnig');
    expect(v).toEqual(expect.arrayContaining(['camping', 'campig', 'campning', 'campnog']));
    expect(v).not.toContain('campnig');
    expect(spellingVariants('pottrey')).toContain('pottery');
    expect(spellingVariants('swimmming')).toContain('swimming');
    expect(spellingVariants('paintng')).toContain('painting');
  });

  it('keeps the first letter, but for its swap with the second', () => {
    const v = spellingVariants('house');
    expect(v).toContain('ohuse');
    expect(v).not.toContain('mouse');
    expect(v).not.toContain('ouse');
    expect(v).not.toContain('thouse');
    expect(v.every((w) => w.startsWith('h') || w === 'ohuse')).toBe(true);
  });

  it('is distinct and linear in the word length', () => {
    const v = spellingVariants('abcdefghij');
    expect(new Set(v).size).toBe(v.length);
    expect(v.length).toBeLessThanOrEqual(2 * 10 + 2 * 10 * 26);
    expect(spellingVariants('abcdefghijabcdefghij').length).toBeLessThanOrEqual(2 * 20 + 2 * 20 * 26);
  });

  it('keeps a word outside a–z in its own letters', () => {
    const v = spellingVariants('собака');
    expect(v).toEqual(expect.arrayContaining(['сбака', 'сбоака']));
    expect(v.every((w) => /^[а-я]+$/.test(w))).toBe(true);
    expect(spellingVariants('cafés')).toEqual(expect.arrayContaining(['cafes', 'cafs']));
  });
});

describe('correctable', () => {
  it('takes alphabetic words of 5 to 20 letters only', () => {
    expect(correctable('campnig')).toBe(true);
    expect(correctable('собака')).toBe(true);
    expect(correctable('cats')).toBe(false);
    expect(correctable('x'.repeat(21))).toBe(false);
    expect(correctable('python3')).toBe(false);
    expect(correctable('my_var')).toBe(false);
    expect(correctable('咖啡店很好')).toBe(false);
  });
});
