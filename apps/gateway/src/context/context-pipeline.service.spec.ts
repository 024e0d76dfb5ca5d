import type { AppConfig } from '@app/config';
import type { AssembleJob, AssembleResult } from '@app/contracts';
import {
  assembleBlock,
  Identity,
  KernelError,
  KernelErrorCode,
  normalizePenalties,
  RetrievalOutcome,
} from '@app/kernel';
import type { AssembleClient } from '@app/queue';
import type { AdmissionService } from '../http/admission.service';
import type { DedupLedgerService } from '../ledger/dedup-ledger.service';
import { ContextParams } from './context-params';
import { ContextPipelineService } from './context-pipeline.service';
import type { FanoutInput, RetrievalFanoutService } from './retrieval-fanout.service';
import type { RewriteClientService } from './rewrite-client.service';
import type { SessionContextService } from './session-context.service';

// The conductor with fake clients (no queue, no store): what it hands each stage, what it answers, and how
// a failed stage shows up (docs/contract.md#pipeline, #stats).

const caller: Identity = { accountId: 'acme', userId: 'ann', role: 'user', actorPeerId: null };
const U = 'viking://user/ann';

const params = (over: Partial<ContextParams> = {}): ContextParams => ({
  query: 'kestrel',
  sessionId: null,
  limit: 10,
  scoreThreshold: null,
  filter: null,
  quotas: null,
  purpose: null,
  detail: null,
  maxTokens: 1600,
  dedupTurns: 0,
  excludeUris: [],
  peerScope: 'actor',
  penalties: normalizePenalties(null),
  rewrite: false,
  rewriteMaxBullets: 6,
  queryExpansion: 'off',
  render: true,
  telemetry: false,
  ...over,
});

const hit = (name: string, score: number) => ({
  uri: `${U}/memories/events/${name}.md`,
  score,
  abstract: `the ${name} note`,
  context_type: 'memory',
});

interface Fakes {
  outcomes?: (input: FanoutInput) => RetrievalOutcome[];
  assemble?: (job: AssembleJob) => Promise<AssembleResult>;
}

function conductor(f: Fakes = {}) {
  const fanoutInputs: FanoutInput[] = [];
  const assembleJobs: AssembleJob[] = [];
  const fanout = {
    run: async (input: FanoutInput) => {
      fanoutInputs.push(input);
      return (
        f.outcomes ?? ((i) => i.calls.map((call) => ({ call, result: { memories: [hit('a', 0.9), hit('b', 0.5)] } })))
      )(input);
    },
  } as unknown as RetrievalFanoutService;
  const assembler = {
    call: async (job: AssembleJob) => {
      assembleJobs.push(job);
      return (f.assemble ?? (async (j) => ({ ...assembleBlock(j), bodiesRead: 0 })))(job);
    },
  } as unknown as AssembleClient;
  const rewriter = {
    intentEnabled: false,
    digest: async () => ({ status: 'off', digest: '', usage: null }),
  } as unknown as RewriteClientService;
  const config = { queues: { requestDeadlineMs: 5000 } } as AppConfig;
  // The large-search lane as the conductor uses it: what it was asked for, and whether the work ran inside it.
  const lane: { asked: number[]; inside: boolean } = { asked: [], inside: false };
  const admission = {
    inLargeSearchLane: async <T>(_c: Identity, asked: number, _wait: number, work: () => Promise<T>) => {
      lane.asked.push(asked);
      lane.inside = true;
      try {
        return await work();
      } finally {
        lane.inside = false;
      }
    },
  } as unknown as AdmissionService;
  const service = new ContextPipelineService(
    config,
    assembler,
    {} as SessionContextService,
    {} as DedupLedgerService,
    fanout,
    rewriter,
    admission,
  );
  return { service, fanoutInputs, assembleJobs, lane };
}

describe('ContextPipelineService (the conductor)', () => {
  it('hands the planned calls to the fan-out and the ranked candidates to the assembler, and answers its block', async () => {
    const { service, fanoutInputs, assembleJobs } = conductor();
    const result = await service.run(caller, params());
    expect(fanoutInputs).toHaveLength(1);
    expect(fanoutInputs[0]!.calls.map((c) => c.query)).toEqual(['kestrel']);
    expect(assembleJobs).toHaveLength(1);
    expect(assembleJobs[0]!.candidates.map((c) => c.uri)).toEqual([
      `${U}/memories/events/a.md`,
      `${U}/memories/events/b.md`,
    ]);
    expect(assembleJobs[0]).toMatchObject({ maxTokens: 1600, detail: null, query: 'kestrel', explain: false });
    expect(result.entries.map((e) => e.uri)).toEqual([`${U}/memories/events/a.md`, `${U}/memories/events/b.md`]);
    expect(result.rendered).toContain('<memory');
    expect(result.stats).not.toHaveProperty('retrieval_errors');
    expect(result.stats.max_tokens).toBe(1600);
  });

  it('the search and its assembly run in the large-search lane, told the candidates asked over all find calls', async () => {
    const inside: boolean[] = [];
    const c = conductor({
      outcomes: (input) => {
        inside.push(c.lane.inside);
        return input.calls.map((call) => ({ call, result: { memories: [hit('a', 0.9)] } }));
      },
      assemble: async (job) => {
        inside.push(c.lane.inside);
        return { ...assembleBlock(job), bodiesRead: 0 };
      },
    });
    await c.service.run(caller, params({ quotas: { events: 300, entities: 200 } }));
    expect(inside).toEqual([true, true]);
    const calls = c.fanoutInputs[0]!.calls;
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(c.lane.asked).toEqual([calls.reduce((n, call) => n + call.limit, 0)]);
    expect(c.lane.asked[0]).toBeGreaterThanOrEqual(500);
  });

  it('an assembler failure falls back to the kernel block from abstracts and is reported as its own AssembleError line', async () => {
    const { service, assembleJobs } = conductor({
      assemble: async () => {
        throw new Error('worker crashed');
      },
    });
    const result = await service.run(caller, params());
    const expected = assembleBlock(assembleJobs[0]!);
    expect(result.entries).toEqual(expected.entries);
    expect(result.rendered).toBe(expected.rendered);
    expect(result.stats.retrieval_errors).toEqual(['AssembleError: worker crashed']);
  });

  it('… with the bodies its search carried: an event whose hit holds its body is served whole, nothing read', async () => {
    const body = '# Summary\nKestrel at dawn.\n\n# ChatLog:\nthe kestrel hovered, then stooped on a vole.';
    const { service } = conductor({
      outcomes: (input) =>
        input.calls.map((call) => ({
          call,
          result: { memories: [{ ...hit('a', 0.9), abstract: body, wholeBody: true }], resources: [], skills: [] },
        })),
      assemble: async () => {
        throw new Error('worker crashed');
      },
    });
    const result = await service.run(caller, params());
    expect(result.entries.map((e) => [e.uri, e.detail, e.text])).toEqual([[`${U}/memories/events/a.md`, 'full', body]]);
  });

  it('the AssembleError line survives five search failures (the cap applies to searches only)', async () => {
    const { service } = conductor({
      outcomes: (input) =>
        Array.from({ length: 7 }, (_, i) => ({
          call: input.calls[0]!,
          error: { name: 'TimeoutError', message: `late ${i}` },
        })),
      assemble: async () => {
        throw new Error('worker crashed');
      },
    });
    const result = await service.run(caller, params());
    expect(result.stats.retrieval_errors).toEqual([
      'TimeoutError: late 0',
      'TimeoutError: late 1',
      'TimeoutError: late 2',
      'TimeoutError: late 3',
      'TimeoutError: late 4',
      'AssembleError: worker crashed',
    ]);
  });

  it('Redis being down (UNAVAILABLE) is not papered over: the request fails', async () => {
    const { service } = conductor({
      assemble: async () => {
        throw new KernelError(KernelErrorCode.Unavailable, 'redis down');
      },
    });
    await expect(service.run(caller, params())).rejects.toMatchObject({ code: KernelErrorCode.Unavailable });
  });

  it('a blank query with searches to run is a 400 before any fan-out; render:false blanks only `rendered`', async () => {
    const blank = conductor();
    await expect(blank.service.run(caller, params({ query: '  ' }))).rejects.toMatchObject({
      code: KernelErrorCode.InvalidArgument,
    });
    expect(blank.fanoutInputs).toHaveLength(0);
    const quiet = await conductor().service.run(caller, params({ render: false }));
    expect([quiet.rendered, quiet.entries.length]).toEqual(['', 2]);
  });

  it('passes the request threshold and the caller to the fan-out', async () => {
    const { service, fanoutInputs } = conductor();
    await service.run(caller, params({ scoreThreshold: 0.2 }));
    expect(fanoutInputs[0]).toMatchObject({ identity: caller, filter: null, scoreThreshold: 0.2 });
  });
});
