import fc from 'fast-check';
import {
  assembleBlock,
  assembleReading,
  BlockRequest,
  Candidate,
  carriedBodies,
  ContentRead,
  contentUriFor,
  planBlockReads,
} from '@app/kernel';
import { candidate as cand } from '@app/kernel/testing/candidate';

// The kernel's assembleReading (docs/context.md, "Bodies the search carries") over random blocks: reading the
// sidecars only when the plan looks for one never changes the block.

const U = 'viking://user/u/memories';
const event = (name: string, score: number, text: string, wholeBody: boolean): Candidate =>
  cand(`${U}/events/${name}.md`, 'events', { score, abstract: text, ...(wholeBody ? { wholeBody: true } : {}) });
const directory = (path: string, score: number, abstract: string): Candidate =>
  cand(`${U}/${path}`, 'events', { uri: `${U}/${path}/.abstract.md`, level: 0, isDirectory: true, score, abstract });

const reader = (bodies: ReadonlyMap<string, string>) => async (reads: ContentRead[]) =>
  new Map(reads.filter((r) => bodies.has(r.uri)).map((r) => [r.uri, bodies.get(r.uri)!]));

describe('assembleReading', () => {
  it('is the block of every needed body read up front, whatever the candidates, budget and pins (property)', async () => {
    const word = fc.constantFrom('heron', 'pond', 'statue', 'carp', 'dawn', 'bronze', 'town');
    const text = fc.array(word, { minLength: 1, maxLength: 40 }).map((w) => w.join(' '));
    const item = fc.record({
      kind: fc.constantFrom('file', 'stale', 'dir'),
      name: fc.constantFrom('a', 'b', 'c', 'd'),
      score: fc.double({ min: 0.01, max: 1, noNaN: true }),
      abstract: text,
      body: text,
    });
    // Both ways are exercised: blocks whose plan looked for a sidecar (read, planned again) and blocks that never did.
    const seen = { looked: 0, never: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { maxLength: 8 }),
        fc.constantFrom(60, 200, 800, 1600),
        fc.constantFrom(null, 'overview', 'full', 'abstract'),
        async (items, maxTokens, detail) => {
          const bodies = new Map<string, string>();
          const candidates = items.map((it, i) => {
            if (it.kind === 'dir') {
              const c = directory(`d${i}${it.name}`, it.score, it.abstract);
              bodies.set(contentUriFor(c), it.body);
              return c;
            }
            const c = event(`${it.name}${i}`, it.score, it.kind === 'file' ? it.body : it.abstract, it.kind === 'file');
            bodies.set(c.baseUri, it.body);
            return c;
          });
          candidates.sort((a, b) => b.score - a.score);
          const req: BlockRequest = { candidates, maxTokens, detail, query: 'heron pond' };
          const asked: string[] = [];
          const read = reader(bodies);
          const { bodiesRead: _n, ...block } = await assembleReading(req, async (reads) => {
            asked.push(...reads.map((r) => r.uri));
            return read(reads);
          });
          if (candidates.some((c) => c.isDirectory))
            seen[asked.some((u) => u.endsWith('/.overview.md')) ? 'looked' : 'never'] += 1;
          // Every body the read policy names, read up front, and those the search carried.
          const eager = new Map(carriedBodies(req));
          for (const r of planBlockReads(req)) if (bodies.has(r.uri)) eager.set(r.uri, bodies.get(r.uri)!);
          expect(block).toEqual(assembleBlock(req, eager));
        },
      ),
      { numRuns: 300 },
    );
    expect(seen.looked).toBeGreaterThan(10);
    expect(seen.never).toBeGreaterThan(10);
  });
});
