import { documentOutline } from './document-outline';
import { stripMemoryFields } from './memory-fields';
import { extractSummary } from './memory-summary';
import { stripOkfFrontmatter } from './okf-frontmatter';

describe('stripOkfFrontmatter (lenient)', () => {
  it.each([
    { name: 'legacy text without frontmatter is unchanged', text: 'plain body\n', out: 'plain body\n' },
    {
      name: 'OKF frontmatter removed, trailing newline dropped',
      text: '---\ndirectory: viking://x/\n---\nbody line\n',
      out: 'body line',
    },
    {
      name: 'one blank line after the closing fence is eaten',
      text: '---\ndirectory: d\n---\n\nbody\n\n',
      out: 'body',
    },
    { name: 'CRLF documents', text: '---\r\ndirectory: d\r\n---\r\nbody\r\n', out: 'body' },
    { name: 'lone CR line ends', text: '---\rdirectory: d\r---\rbody\r', out: 'body' },
    { name: 'mixed line ends', text: '---\r\ndirectory: d\n---\rbody\nmore', out: 'body\nmore' },
    { name: 'empty frontmatter block', text: '---\n---\nbody', out: 'body' },
    { name: 'frontmatter without directory still strips', text: '---\nsource: s\n---\nbody', out: 'body' },
    { name: 'invalid YAML still strips', text: '---\n: : [\n---\nbody', out: 'body' },
    {
      name: 'unclosed frontmatter degrades to the raw text',
      text: '---\ndirectory: d\nbody',
      out: '---\ndirectory: d\nbody',
    },
    { name: 'a fence later in the text is not frontmatter', text: 'intro\n---\nmore', out: 'intro\n---\nmore' },
    { name: 'empty input', text: '', out: '' },
  ])('$name', ({ text, out }) => {
    expect(stripOkfFrontmatter(text)).toBe(out);
  });
});

describe('stripMemoryFields', () => {
  it.each([
    {
      name: 'trailer at the end',
      text: '# Summary\nShipped X.\n\n<!-- MEMORY_FIELDS\n{"a": 1}\n-->',
      out: '# Summary\nShipped X.',
    },
    { name: 'inline trailer', text: 'body <!-- MEMORY_FIELDS {"a":1} --> tail', out: 'body  tail' },
    { name: 'no trailer, trimmed', text: '  body \n', out: 'body' },
    { name: 'other comments kept', text: 'a <!-- note --> b', out: 'a <!-- note --> b' },
    {
      name: 'a longer word is not the marker',
      text: 'a <!-- MEMORY_FIELDSX --> b',
      out: 'a <!-- MEMORY_FIELDSX --> b',
    },
    { name: 'unclosed trailer is left alone', text: 'a\n<!-- MEMORY_FIELDS {', out: 'a\n<!-- MEMORY_FIELDS {' },
  ])('$name', ({ text, out }) => {
    expect(stripMemoryFields(text)).toBe(out);
  });
});

describe('extractSummary', () => {
  it.each([
    {
      name: 'H1 summary up to the next heading',
      text: '# Summary\nShipped X.\n\n# 2026-07-14 ChatLog:\nchatter',
      out: 'Shipped X.',
    },
    {
      name: 'H3, any case, trailing spaces',
      text: 'intro\n### SUMMARY  \nthe gist\nsecond line\n## Next\nx',
      out: 'the gist\nsecond line',
    },
    { name: 'runs to the end', text: '# Summary\nonly the gist\n', out: 'only the gist' },
    { name: 'H4 does not end the section', text: '# Summary\na\n#### deep\nb\n# Other\nc', out: 'a\n#### deep\nb' },
    { name: 'heading right after is an empty section', text: '# Summary\n# Other\nc', out: '' },
    { name: 'no space needed after hashes', text: '#Summary\ngist', out: 'gist' },
    { name: 'H4 summary is not a section', text: '#### Summary\ngist', out: '' },
    {
      name: 'legacy inline up to a dated ChatLog',
      text: 'Summary: fixed   the\nbuild\n2026-07-14 (Tue) ChatLog:\nuser: hi',
      out: 'fixed the build',
    },
    { name: 'legacy inline up to a bare ChatLog', text: 'Summary: gist\nChatLog:\nlog', out: 'gist' },
    { name: 'legacy inline up to the trailer', text: 'Summary: gist\n<!-- MEMORY_FIELDS {} -->', out: 'gist' },
    { name: 'legacy inline to the end', text: '  summary:   all of it  \n', out: 'all of it' },
    { name: 'legacy form must lead the text', text: 'intro\nSummary: gist', out: '' },
    { name: 'nothing recognisable', text: 'just prose', out: '' },
    { name: 'empty', text: '', out: '' },
  ])('$name', ({ text, out }) => {
    expect(extractSummary(text)).toBe(out);
  });
});

describe('documentOutline', () => {
  it.each([
    {
      name: 'contract example',
      text: '# Title\n\nintro text\n\n## Body\n\nmore',
      out: '# Title\n  ## Body\n\nintro text',
    },
    { name: 'headings only', text: '# A\n## B\n### C\n#### D', out: '# A\n  ## B\n    ### C' },
    { name: 'paragraph only', text: 'first para\nline two\n\nsecond para', out: 'first para\nline two' },
    {
      name: 'heading lines removed from the first block',
      text: '# T\nbody under title\n\nnext',
      out: '# T\n\nbody under title',
    },
    { name: 'heading text trimmed', text: '#   Spaced   \n\nx', out: '# Spaced\n\nx' },
    {
      name: 'hash without space is not a heading but is skipped as a paragraph line',
      text: '#tag\n\nreal text',
      out: 'real text',
    },
    { name: 'blank-looking separators with spaces', text: 'a\n   \nb', out: 'a' },
    { name: 'empty', text: '', out: '' },
  ])('$name', ({ text, out }) => {
    expect(documentOutline(text)).toBe(out);
  });

  it('keeps at most 24 headings', () => {
    const text = Array.from({ length: 30 }, (_, i) => `# H${i}`).join('\n');
    expect(documentOutline(text).split('\n')).toHaveLength(24);
  });

  it('cuts the paragraph to 400 code points without splitting astral characters', () => {
    const out = documentOutline('😀'.repeat(500));
    expect(Array.from(out)).toHaveLength(400);
    expect(out).toBe('😀'.repeat(400));
  });
});
