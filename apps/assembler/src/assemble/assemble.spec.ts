import { UnrecoverableError } from 'bullmq';
import { AssembleJob } from '@app/contracts';
import { ContentRead, Identity, planHere } from '@app/kernel';
import { candidate } from '@app/kernel/testing/candidate';
import { AssembleProcessor } from './assemble.processor';
import { AssembleService } from './assemble.service';
import type { BodyReaderService } from './body-reader.service';
import type { PlanThreads } from './plan-threads';

// The assembler's service and processor with a fake body reader (no store): the reads it asks for, the block it
// plans from what came back, and how its processor refuses a malformed payload.

const identity: Identity = { accountId: 'acme', userId: 'ann', role: 'user', actorPeerId: null };
const U = 'viking://user/ann';
const BODY = 'The kestrel hovers over the meadow at dawn, then stoops on a vole. '.repeat(3).trim();

const cand = (name: string, score: number) =>
  candidate(`${U}/memories/events/${name}.md`, 'events', { score, abstract: `${name}: a kestrel note` });

function withBodies(bodies: Record<string, string>) {
  const asked: ContentRead[][] = [];
  const reader = {
    read: async (_who: Identity, reads: ContentRead[]) => {
      asked.push(reads);
      return new Map(reads.filter((r) => bodies[r.uri] !== undefined).map((r) => [r.uri, bodies[r.uri]!]));
    },
  } as unknown as BodyReaderService;
  const here = { planner: planHere } as unknown as PlanThreads;
  return { service: new AssembleService(reader, here), asked };
}

const job = (over: Partial<AssembleJob> = {}): AssembleJob => ({
  identity,
  candidates: [cand('dawn', 0.9), cand('dusk', 0.4)],
  maxTokens: 1600,
  detail: null,
  query: 'kestrel',
  ...over,
});

describe('AssembleService', () => {
  it('reads the bodies the read policy names and serves them whole when the budget allows', async () => {
    const { service, asked } = withBodies({ [`${U}/memories/events/dawn.md`]: BODY });
    const r = await service.assemble(job());
    expect(asked[0]!.map((x) => x.uri)).toEqual([`${U}/memories/events/dawn.md`, `${U}/memories/events/dusk.md`]);
    // Two asked for, one returned: dusk's body cannot be read.
    expect(r.bodiesRead).toBe(1);
    const dawn = r.entries.find((e) => e.uri.endsWith('dawn.md'))!;
    expect(dawn.detail).toBe('full');
    expect(r.rendered).toContain('stoops on a vole');
    // The unreadable body degrades to its abstract, never an error.
    const dusk = r.entries.find((e) => e.uri.endsWith('dusk.md'))!;
    expect(dusk.detail).toBe('abstract');
    expect(r.plan.returned).toBe(2);
  });

  it('does not read a body the search carried, and serves it whole from the abstract', async () => {
    const dusk = 'At dusk the kestrel roosts in the old barn by the river.';
    const { service, asked } = withBodies({ [`${U}/memories/events/dusk.md`]: dusk });
    const dawn = { ...cand('dawn', 0.9), abstract: BODY, wholeBody: true as const };
    const r = await service.assemble(job({ candidates: [dawn, cand('dusk', 0.4)] }));
    expect(asked[0]!.map((x) => x.uri)).toEqual([`${U}/memories/events/dusk.md`]);
    expect(r.bodiesRead).toBe(1);
    expect(r.entries.map((e) => [e.uri.split('/').pop(), e.detail])).toEqual([
      ['dawn.md', 'full'],
      ['dusk.md', 'full'],
    ]);
    expect(r.entries.map((e) => e.text)).toEqual([BODY, dusk]);
  });

  it('a pinned abstract tier reads nothing', async () => {
    const { service, asked } = withBodies({ [`${U}/memories/events/dawn.md`]: BODY });
    const r = await service.assemble(job({ detail: 'abstract' }));
    expect([asked, r.bodiesRead]).toEqual([[], 0]);
    expect(r.entries.map((e) => e.detail)).toEqual(['abstract', 'abstract']);
  });
});

describe('AssembleProcessor', () => {
  const processor = () => new AssembleProcessor(withBodies({}).service);

  it('fails a malformed payload for good, naming the queue', async () => {
    for (const bad of [{}, { identity, candidates: 'x', maxTokens: 10 }, { ...job(), maxTokens: 0 }]) {
      const err = await processor()
        .handle(bad)
        .catch((e: Error) => e);
      expect(err).toBeInstanceOf(UnrecoverableError);
      expect((err as Error).message).toBe('INTERNAL: malformed assemble job payload');
    }
  });

  it('runs the service for a valid payload', async () => {
    const r = await processor().handle(job());
    expect(r.entries.map((e) => e.uri)).toEqual([`${U}/memories/events/dawn.md`, `${U}/memories/events/dusk.md`]);
  });
});
