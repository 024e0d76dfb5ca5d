// The host-side digest (docs/contract.md#local-digest): normalisation, citation repair by edit distance, the cache key
// over
// every compressor input, and the single-entry cache file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compressRecallContext,
  DIGEST_HEADER,
  digestCacheKey,
  normalizeCompressed,
  repairDigestUris,
  snapUri,
} from './local-digest';

const SERVED = 'viking://user/u/memories/preferences/cross runtime.md';
const PLAIN = 'viking://user/u/memories/entities/heron-quill.md';

describe('normalizeCompressed', () => {
  it.each([
    ['NO_RELEVANT_MEMORY → ""', 'NO_RELEVANT_MEMORY', 6, ''],
    ['lower-case no_relevant_memory → ""', ' no_relevant_memory ', 6, ''],
    ['chatter without bullets → null', 'Here is some chatter', 6, null],
    ['uncited bullets → null', '- a fact\n- another', 6, null],
    ['* bullets become "- "', `* useful (${PLAIN})`, 6, `${DIGEST_HEADER}\n- useful (${PLAIN})`],
    ['max bullets', `- a ${PLAIN}\n- b ${PLAIN}\n- c ${PLAIN}`, 2, `${DIGEST_HEADER}\n- a ${PLAIN}\n- b ${PLAIN}`],
    [
      'header lines and chatter are dropped',
      `${DIGEST_HEADER}\nIntro\n- a ${PLAIN}`,
      6,
      `${DIGEST_HEADER}\n- a ${PLAIN}`,
    ],
  ])('%s', (_name, raw, maxBullets, expected) => {
    expect(normalizeCompressed(raw, 4000, maxBullets)).toBe(expected);
  });

  it('cuts each bullet to 500 chars and the digest to its limit', () => {
    const long = `- ${'x'.repeat(600)} ${PLAIN}`;
    const one = normalizeCompressed(long)!;
    expect(one.split('\n')[1]).toHaveLength(500);
    const many = Array.from({ length: 6 }, (_, i) => `- fact ${i} ${'y'.repeat(100)} ${PLAIN}`).join('\n');
    expect(normalizeCompressed(many, 400)!.length).toBeLessThanOrEqual(400);
  });
});

describe('citation repair', () => {
  it.each([
    ['exact', `- fact source: ${PLAIN}`, [PLAIN], `- fact source: ${PLAIN}`],
    [
      'percent-escaped',
      '- escaped source: viking://user/u/memories/preferences/cross%20runtime.md',
      [SERVED],
      `- escaped source: ${SERVED}`,
    ],
    ['near miss snaps', `- near source: ${PLAIN}.evil`, [PLAIN], `- near source: ${PLAIN}`],
    [
      'one-character typo snaps',
      `- typo source: ${PLAIN.replace('heron', 'herон')}`,
      [PLAIN],
      `- typo source: ${PLAIN}`,
    ],
    ['trailing full stop snaps', `- dot source: ${PLAIN}.`, [PLAIN], `- dot source: ${PLAIN}`],
    ['a bullet citing anything unservable is dropped', `- mixed source: ${PLAIN} and viking://evil/x.md`, [PLAIN], ''],
    ['far-away URI is dropped', '- invented source: viking://completely/different/place/xyz.md', [PLAIN], ''],
    ['CJK source marker kept', `- 事实 来源：${PLAIN}`, [PLAIN], `- 事实 来源：${PLAIN}`],
  ])('%s', (_name, bullet, served, expected) => {
    expect(repairDigestUris(`${DIGEST_HEADER}\n${bullet}`, served)).toBe(
      expected ? `${DIGEST_HEADER}\n${expected}` : '',
    );
  });

  it('keeps the good bullets and drops the invented ones', () => {
    const digest = `${DIGEST_HEADER}\n- good ${PLAIN}\n- invented viking://completely/different/place/xyz.md`;
    expect(repairDigestUris(digest, [PLAIN])).toBe(`${DIGEST_HEADER}\n- good ${PLAIN}`);
  });

  it('snaps to the nearest of several served URIs within max(4, ⌊len/4⌋)', () => {
    const a = 'viking://resources/a.md';
    const b = 'viking://resources/b.md';
    expect(snapUri('viking://resources/bb.md', [a, b])).toBe(b);
    expect(snapUri('viking://resources/zzzzz.md', [a, b])).toBe(a); // distance 5 ≤ ⌊24/4⌋ = 6
    expect(snapUri('viking://other/zzzzzzzzzz.md', [a, b])).toBeNull();
  });
});

describe('digest cache key', () => {
  const base = {
    query: 'q',
    rendered: 'r'.repeat(2000),
    uris: ['viking://a', 'viking://b'],
    maxInputChars: 1500,
    maxBullets: 6,
  };
  const key = digestCacheKey(base);

  it.each([
    ['query', { query: 'other' }],
    ['rendered within the cut', { rendered: `s${'r'.repeat(1999)}` }],
    ['the URI set', { uris: ['viking://a'] }],
    ['maxInputChars', { maxInputChars: 1600 }],
    ['maxBullets', { maxBullets: 5 }],
  ])('changes with %s', (_name, change) => {
    expect(digestCacheKey({ ...base, ...change })).not.toBe(key);
  });

  it.each([
    ['URI order', { uris: ['viking://b', 'viking://a'] }],
    ['rendered beyond the cut', { rendered: `${'r'.repeat(1500)}${'z'.repeat(500)}` }],
  ])('ignores %s', (_name, change) => {
    expect(digestCacheKey({ ...base, ...change })).toBe(key);
  });

  it('is a SHA-256 hex digest', () => {
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('compressRecallContext', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'muninn-digest-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const rendered = `<memory uri="${PLAIN}" type="entities" score="0.80" detail="full">\n${'x'.repeat(2000)}\n</memory>`;
  const base = (run: (p: string) => Promise<string>, cachePath?: string) => ({
    query: 'q',
    rendered,
    entries: [{ uri: PLAIN }],
    runCompressor: run,
    cachePath,
    minInputChars: 1500,
    maxInputChars: 18000,
    maxBullets: 6,
  });

  it('passes short input straight through without calling the compressor', async () => {
    const run = jest.fn(async () => 'NO_RELEVANT_MEMORY');
    expect(await compressRecallContext({ ...base(run), rendered: 'short block' })).toEqual({
      status: 'ok',
      context: 'short block',
    });
    expect(run).not.toHaveBeenCalled();
  });

  it('calls the compressor once per distinct input and caches the repaired digest atomically', async () => {
    const cachePath = join(dir, 'recall-digest.json');
    const run = jest.fn(async () => `- fact source: ${PLAIN}.`);
    const first = await compressRecallContext(base(run, cachePath));
    const second = await compressRecallContext(base(run, cachePath));
    expect(first).toEqual({ status: 'ok', context: `${DIGEST_HEADER}\n- fact source: ${PLAIN}` });
    expect(second).toEqual(first);
    expect(run).toHaveBeenCalledTimes(1);
    const file = JSON.parse(readFileSync(cachePath, 'utf8'));
    expect(Object.keys(file).sort()).toEqual(['digest', 'key', 'updatedAt']);
    await compressRecallContext({ ...base(run, cachePath), query: 'another query' });
    expect(run).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['NO_RELEVANT_MEMORY → empty', async () => 'NO_RELEVANT_MEMORY', { status: 'empty', context: '' }],
    ['chatter → failed', async () => 'I could not find bullets', { status: 'failed', context: '' }],
    [
      'only invented citations → failed',
      async () => '- fact viking://invented/far/away/x.md',
      { status: 'failed', context: '' },
    ],
    [
      'compressor throws → failed',
      async () => Promise.reject(new Error('host CLI missing')),
      { status: 'failed', context: '' },
    ],
  ])('%s', async (_name, run, expected) => {
    expect(await compressRecallContext(base(run as () => Promise<string>))).toEqual(expected);
  });
});
