import { candidate as cand } from '../testing/candidate';
import { Candidate } from '../tiering/candidate';
import { contentUriFor } from '../tiering/tier-text';
import { assembleBlock, BlockRequest } from './assemble-block';
import { assembleReading } from './assemble-reading';
import { ContentRead } from './read-policy';
import { entryFor } from './assembled-entry';
import { entryTokens } from '../render/render-entry';

// assembleReading against a fake reader: which bodies it asks for, in how many reads, and the block it plans
// (the property over random blocks is apps/assembler's assemble-reading.spec.ts: fast-check is not a kernel import).

const U = 'viking://user/u/memories';
const event = (name: string, score: number, text: string, wholeBody = true): Candidate =>
  cand(`${U}/events/${name}.md`, 'events', { score, abstract: text, ...(wholeBody ? { wholeBody: true } : {}) });
const directory = (path: string, score: number, abstract: string): Candidate =>
  cand(`${U}/${path}`, 'events', { uri: `${U}/${path}/.abstract.md`, level: 0, isDirectory: true, score, abstract });

function reader(bodies: Record<string, string>) {
  const asked: string[][] = [];
  const read = async (reads: ContentRead[]) => {
    asked.push(reads.map((r) => r.uri));
    return new Map(reads.filter((r) => bodies[r.uri] !== undefined).map((r) => [r.uri, bodies[r.uri]!]));
  };
  return { read, asked };
}

const HERON = 'Heron fishing at the pond at dawn; it took a carp.';
const SIDECAR = `${U}/events/.overview.md`;
const OVERVIEW = 'Events: 2 memories, 2026-07. Heron fishing; heron statue.';

describe('assembleReading', () => {
  it('reads no sidecar when the plan never reaches the directory, and plans what every body would give', async () => {
    // The entity's line fills the budget: the directory after it (directories rank after their files) cannot fit.
    const heron = cand(`${U}/entities/heron.md`, 'entities', { score: 0.9, abstract: HERON, wholeBody: true });
    const req: BlockRequest = {
      candidates: [heron, directory('events', 0.7, 'Events')],
      // Three tokens are left: fewer than any entry, even the directory's bare URI, needs.
      maxTokens: entryTokens(entryFor(heron, 'abstract', HERON)) + 3,
      detail: null,
      query: 'heron',
    };
    const { read, asked } = reader({ [SIDECAR]: OVERVIEW });
    const r = await assembleReading(req, read);
    expect(asked).toEqual([]);
    expect(r.bodiesRead).toBe(0);
    const { bodiesRead: _n, ...block } = r;
    expect(block.entries.map((e) => e.uri)).toEqual([heron.baseUri]);
    expect(block).toEqual(assembleBlock(req, new Map([...bodyMap(req), [SIDECAR, OVERVIEW]])));
  });

  it('reads the sidecars and plans again when the plan reaches a directory overview', async () => {
    const req: BlockRequest = { candidates: [directory('events', 0.7, 'Events')], maxTokens: 800, detail: 'overview' };
    const { read, asked } = reader({ [SIDECAR]: OVERVIEW });
    const r = await assembleReading(req, read);
    expect(asked).toEqual([[SIDECAR]]);
    expect(r.entries).toEqual([expect.objectContaining({ uri: `${U}/events`, detail: 'overview', text: OVERVIEW })]);
    expect(r.bodiesRead).toBe(1);
  });

  it('reads memory bodies it was not given before planning, sidecars apart, and everything at once with explain', async () => {
    const stale = event('pond', 0.9, 'old text', false);
    const req: BlockRequest = {
      candidates: [stale, directory('events', 0.5, 'Events')],
      maxTokens: 1600,
      detail: 'overview',
      query: 'heron',
    };
    const bodies = { [stale.baseUri]: `# Summary\n${HERON}`, [SIDECAR]: OVERVIEW };
    const plain = reader(bodies);
    await assembleReading(req, plain.read);
    expect(plain.asked).toEqual([[stale.baseUri], [SIDECAR]]);
    const explained = reader(bodies);
    const r = await assembleReading({ ...req, explain: true }, explained.read);
    expect(explained.asked).toEqual([[stale.baseUri, SIDECAR]]);
    expect(r.bodiesRead).toBe(2);
  });

  it('counts the bodies the store returned, not those it was asked for', async () => {
    const stale = (name: string, score: number) => event(name, score, 'old text', false);
    const req: BlockRequest = {
      candidates: [stale('pond', 0.9), stale('marsh', 0.8)],
      maxTokens: 1600,
      detail: 'overview',
    };
    // The reader skips the marsh body (past the plan's total, or gone): one body read of the two asked for.
    const { read, asked } = reader({ [`${U}/events/pond.md`]: HERON });
    const r = await assembleReading(req, read);
    expect(asked).toEqual([[`${U}/events/pond.md`, `${U}/events/marsh.md`]]);
    expect(r.bodiesRead).toBe(1);
  });
});

/** The carried bodies of a request's candidates, as the search gave them. */
function bodyMap(req: BlockRequest): Map<string, string> {
  return new Map(req.candidates.filter((c) => c.wholeBody).map((c) => [contentUriFor(c), c.abstract]));
}
