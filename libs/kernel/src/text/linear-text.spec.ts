import { documentOutline } from '../overview/document-outline';
import { codeSkeleton } from '../overview/code-skeleton';
import { extractSummary } from '../overview/memory-summary';
import { stripMemoryFields } from '../overview/memory-fields';
import { stripOkfFrontmatter } from '../overview/okf-frontmatter';
import { searchText } from '../indexing/search-text';
import { isUnder, stripSidecarSuffix, uriSegments } from '../uri/uri-path';
import { parseVikingUri } from '../uri/viking-uri';
import { pyRstrip, pyStrip } from './py-text';
import { SEGMENT_CHUNK, wordSegments } from './segment-words';
import { trimEndChar, trimEndWhile, trimStartWhile } from './trim';

// Hostile shapes at 1 MB: each of these ran for minutes or hours with the former regexes (quadratic
// in a run's length). The assertions are about results; a regression shows up as a test timeout.
const MB = 1 << 20;

describe('trims', () => {
  it.each([
    { name: 'ASCII', text: 'ab..', out: 'ab' },
    { name: 'astral characters are tested whole', text: '😀a😀😀', out: '😀a' },
    { name: 'all dropped', text: '....', out: '' },
    { name: 'nothing to drop', text: 'abc', out: 'abc' },
  ])('trimEndWhile: $name', ({ text, out }) => {
    expect(trimEndWhile(text, (ch) => ch === '.' || ch === '😀')).toBe(out);
  });

  it('trimStartWhile keeps a lone surrogate pair whole', () => {
    expect(trimStartWhile('😀😀a😀', (ch) => ch === '😀')).toBe('a😀');
  });

  it('a 1 MB run that is not at the end stays', () => {
    const text = `a${' '.repeat(MB)}b`;
    expect(pyRstrip(text)).toBe(text);
    expect(pyStrip(`${text}\n \t`)).toBe(text);
    expect(trimEndChar(`x${'/'.repeat(MB)}y//`, '/')).toBe(`x${'/'.repeat(MB)}y`);
  });
});

describe('wordSegments', () => {
  it('matches Intl.Segmenter on short text', () => {
    const text = '用户喜欢喝咖啡, and she likes tea.';
    const direct = [...new Intl.Segmenter('zh', { granularity: 'word' }).segment(text)]
      .filter((s) => s.isWordLike)
      .map((s) => s.segment);
    expect(wordSegments(text)).toEqual(direct);
  });

  it('cuts long text after a non-letter, so words on either side stay whole', () => {
    const words = wordSegments('word, '.repeat(200_000));
    expect(words.length).toBe(200_000);
    expect([...new Set(words)]).toEqual(['word']);
  });

  it('segments a 1 MB CJK run without a break in pieces of at most SEGMENT_CHUNK', () => {
    const words = wordSegments('咖啡'.repeat(MB / 2));
    expect(words.join('').length).toBe(MB);
    expect(words.every((w) => w.length <= SEGMENT_CHUNK)).toBe(true);
  });
});

describe('searchText on 1 MB', () => {
  it.each([
    { name: 'one long word', text: 'a'.repeat(MB), has: 'a'.repeat(MB) },
    { name: 'a run of punctuation inside an identifier', text: `a.b${'!'.repeat(MB)}c`, has: 'c' },
    { name: 'dots then a letter', text: `${'.'.repeat(MB)}z`, has: 'z' },
    { name: 'one CJK run', text: '我们'.repeat(MB / 2), has: '我们' },
    { name: 'many short tokens', text: '2020-01-01 ('.repeat(MB / 12), has: '2020-01-01' },
  ])('$name', ({ text, has }) => {
    // Booleans, not arrays: a failure must not print a megabyte.
    expect(searchText(text).split(' ').includes(has)).toBe(true);
  });
});

describe('URIs of 1 MB', () => {
  const slashes = `viking://resources/a${'/'.repeat(MB)}b`;

  it('a run of slashes in the middle is an empty segment', () => {
    expect(uriSegments(slashes)).toHaveLength(MB + 2);
    expect(() => parseVikingUri(slashes, 'u')).toThrow(/empty path segments/);
    expect(stripSidecarSuffix(slashes).isDirectory).toBe(false);
    expect(isUnder(slashes, 'viking://resources/a')).toBe(true);
  });

  it('trailing slashes are ignored', () => {
    expect(parseVikingUri(`viking://resources/a${'/'.repeat(MB)}`, 'u').uri).toBe('viking://resources/a');
  });
});

describe('overviews of 1 MB', () => {
  it('stripMemoryFields with many unclosed openers', () => {
    const text = `keep ${'<!-- MEMORY_FIELDS '.repeat(MB / 19)}`;
    expect(stripMemoryFields(text)).toBe(text.trim());
    expect(stripMemoryFields(`a <!-- MEMORY_FIELDS${' '.repeat(MB)}--> b`)).toBe('a  b');
  });

  it('extractSummary: a legacy summary over a long run of blank lines', () => {
    expect(extractSummary(`Summary: gist${'\n'.repeat(MB)}ChatLog:\nlog`)).toBe('gist');
    expect(extractSummary(`summary: a${'\n2020-01-01 ('.repeat(MB / 12)}`)).toMatch(/^a 2020-01-01/);
  });

  it('documentOutline: a heading followed by a long blank run', () => {
    expect(documentOutline(`# title${' '.repeat(MB)}x\n`)).toBe(`# title${' '.repeat(MB)}x`);
    expect(documentOutline(`# ${' '.repeat(MB)}\nbody`)).toBe('#  \n\nbody');
  });

  it('codeSkeleton skips over-long lines', () => {
    expect(codeSkeleton('a.c', `struct ${'a'.repeat(MB)};x\nstruct point {\n`)).toBe('struct point');
    expect(codeSkeleton('A.java', `public ${'a '.repeat(MB / 2)}\n`)).toBe('');
  });

  it('stripOkfFrontmatter keeps inner blank runs', () => {
    expect(stripOkfFrontmatter(`---\n---\na${'\n'.repeat(MB)}b\n\n`)).toBe(`a${'\n'.repeat(MB)}b`);
  });
});
