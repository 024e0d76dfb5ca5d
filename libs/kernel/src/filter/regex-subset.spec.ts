import { KernelError } from '../kernel.error';
import { toSafeRegex } from './regex-subset';

const F = 'filter.pattern';

describe('toSafeRegex', () => {
  it.each([
    { name: 'literals and anchors', pattern: '^abc$', out: '^abc$' },
    { name: 'classes, ranges, alternation', pattern: '^(foo|bar)[a-z0-9_]+\\.md$', out: '^(foo|bar)[a-z0-9_]+\\.md$' },
    { name: 'shorthand classes', pattern: '\\d{4}-\\d{2}\\s\\w+', out: '\\d{4}-\\d{2}\\s\\w+' },
    { name: 'non-capturing group repeated', pattern: '(?:ab)+', out: '(?:ab)+' },
    { name: 'lazy quantifier', pattern: 'a.*?b', out: 'a.*?b' },
    { name: 'optional then lazy', pattern: 'a??', out: 'a??' },
    { name: 'word boundary becomes \\y', pattern: '\\bcat\\B', out: '\\ycat\\Y' },
    { name: 'hex escape becomes \\u00HH', pattern: '\\x41\\u00e9', out: '\\u0041\\u00e9' },
    { name: 'escaped brackets and braces', pattern: '\\[x\\]\\{1\\}', out: '\\[x\\]\\{1\\}' },
    { name: 'bounded repetition', pattern: 'a{2,100}b{3}c{1,}', out: 'a{2,100}b{3}c{1,}' },
    { name: 'non-ASCII literals', pattern: '咖啡|café', out: '咖啡|café' },
    { name: 'a - first or last in brackets', pattern: '[-a][a-]', out: '[-a][a-]' },
    { name: 'a range ending in -', pattern: '[!--]', out: '[!--]' },
    { name: 'ranges between escapes', pattern: '[\\t-\\r\\x41-Z]', out: '[\\t-\\r\\u0041-Z]' },
    { name: 'an escaped - between letters', pattern: '[a\\-z]', out: '[a\\-z]' },
    { name: 'a range of astral characters', pattern: '[😀-😃]', out: '[😀-😃]' },
  ])('accepts $name', ({ pattern, out }) => {
    expect(toSafeRegex(pattern, F, 256)).toBe(out);
  });

  it.each([
    { name: 'a back-reference', pattern: '^(.*)(.*)(.*)\\3\\2\\1$', why: /back-reference/ },
    { name: 'a named back-reference', pattern: '(a)\\k<x>', why: /back-reference/ },
    { name: 'a look-ahead', pattern: 'a(?=b)', why: /look-around/ },
    { name: 'a negative look-behind', pattern: '(?<!a)b', why: /look-around/ },
    { name: 'a named group', pattern: '(?<year>\\d+)', why: /named group/ },
    { name: 'an inline flag', pattern: '(?i)abc', why: /inline flag/ },
    { name: 'a repeated group that repeats', pattern: '(a+)+$', why: /nested quantifiers/ },
    { name: 'deeper nesting', pattern: '((ab*)c)*', why: /nested quantifiers/ },
    { name: 'a doubled quantifier', pattern: 'a**', why: /nested quantifiers/ },
    { name: 'a doubled lazy mark', pattern: 'a*??', why: /nested quantifiers/ },
    { name: 'nothing to repeat', pattern: '*a', why: /nothing to repeat/ },
    { name: 'a quantified anchor', pattern: '^*', why: /nothing to repeat/ },
    { name: 'a large bound', pattern: 'a{1000}', why: /more than 100/ },
    { name: 'an inverted bound', pattern: 'a{3,2}', why: /m < n/ },
    { name: 'a stray brace', pattern: 'a{x}', why: /\\\{/ },
    { name: 'a stray ]', pattern: 'a]', why: /unescaped \]/ },
    { name: 'a POSIX class', pattern: '[[:alpha:]]', why: /POSIX class/ },
    { name: 'a bracket opening with ]', pattern: '[]a]', why: /starting with \]/ },
    { name: 'an unclosed bracket', pattern: '[abc', why: /unclosed \[/ },
    { name: 'an unclosed group', pattern: '(abc', why: /unclosed \(/ },
    { name: 'an unmatched )', pattern: 'abc)', why: /unmatched \)/ },
    { name: 'an engine-specific escape', pattern: '\\Aabc', why: /escape \\A/ },
    { name: 'a Unicode property', pattern: '\\p{L}', why: /escape \\p/ },
    { name: '\\W inside brackets', pattern: '[\\W]', why: /inside brackets/ },
    { name: 'a trailing backslash', pattern: 'abc\\', why: /lone backslash/ },
    { name: 'a reversed range', pattern: '[z-a]', why: /reversed range z-a/ },
    { name: 'a reversed range of escapes', pattern: '[\\uDFFF-\\uD800]', why: /reversed range/ },
    { name: 'a class as a range start', pattern: '[\\d-z]', why: /class escape as a range end/ },
    { name: 'a class as a range end', pattern: '[a-\\w]', why: /class escape as a range end/ },
    { name: 'a - after a range', pattern: '[a-a-z]', why: /right after the range a-a/ },
    { name: 'a repeated word boundary', pattern: '\\b*', why: /nothing to repeat/ },
  ])('refuses $name', ({ pattern, why }) => {
    let error: unknown;
    try {
      toSafeRegex(pattern, F, 256);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(KernelError);
    expect((error as KernelError).code).toBe('INVALID_ARGUMENT');
    expect((error as KernelError).message).toMatch(why);
    expect((error as KernelError).message.startsWith(F)).toBe(true);
  });

  it('refuses a pattern over the length limit, naming the limit', () => {
    expect(() => toSafeRegex('a'.repeat(257), F, 256)).toThrow('filter.pattern is longer than 256 characters');
  });

  it('checks a 1 MB pattern in one pass', () => {
    expect(toSafeRegex('ab|'.repeat(1 << 18) + 'c', F, 1 << 20).length).toBe(3 * (1 << 18) + 1);
  });
});
