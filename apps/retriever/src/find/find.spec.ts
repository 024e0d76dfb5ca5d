import { UnrecoverableError } from 'bullmq';
import { FindJob } from '@app/contracts';
import { EmbedError, EmbedErrorCode } from '@app/embed';
import { invalidArgument } from '@app/kernel';
import { NodeSearchHit } from '@app/store';
import { isFindJob } from './find-job.guard';
import { toFindResult } from './find-result';
import { FindProcessor } from './find.processor';
import { FindService } from './find.service';
import { MAX_QUERY_TERMS, queryTerms } from './query-terms';

const job: FindJob = {
  identity: { accountId: 'acme', userId: 'alice', role: 'user', actorPeerId: null },
  query: 'coffee',
  targets: ['viking://user/alice'],
  filter: null,
  levels: null,
  limit: 10,
  scoreThreshold: null,
};

const hit = (over: Partial<NodeSearchHit>): NodeSearchHit => ({
  uri: 'viking://x',
  level: 2,
  contextType: 'memory',
  score: 0.5,
  abstract: '',
  tags: [],
  wholeBody: false,
  lexical: 0,
  vector: 0,
  ...over,
});

describe('toFindResult', () => {
  it('splits by context type, sorts each list by score, zeroes non-finite scores, counts the total', () => {
    const r = toFindResult([
      hit({ uri: 'viking://m1', score: 0.2 }),
      hit({ uri: 'viking://r1', contextType: 'resource', score: Number.NaN }),
      hit({ uri: 'viking://m2', score: 0.9, tags: ['k=v'] }),
      hit({ uri: 'viking://s1', contextType: 'skill', score: Infinity }),
    ]);
    expect(r.memories.map((h) => [h.uri, h.score])).toEqual([
      ['viking://m2', 0.9],
      ['viking://m1', 0.2],
    ]);
    expect(r.resources).toEqual([
      { context_type: 'resource', uri: 'viking://r1', level: 2, score: 0, abstract: '', tags: [] },
    ]);
    expect(r.skills[0].score).toBe(0);
    expect(r.total).toBe(4);
    expect(Object.keys(r.memories[0])).toEqual(['context_type', 'uri', 'level', 'score', 'abstract', 'tags']);
  });

  it('marks only the hits whose abstract is their whole body, with a key the gateway removes from /find answers', () => {
    const r = toFindResult([hit({ uri: 'viking://m1', wholeBody: true }), hit({ uri: 'viking://m2', score: 0.1 })]);
    expect(r.memories.map((h) => h.wholeBody)).toEqual([true, undefined]);
    expect('wholeBody' in r.memories[1]).toBe(false);
  });
});

describe('isFindJob', () => {
  it.each([
    ['a valid job', job, true],
    ['null', null, false],
    ['missing identity', { ...job, identity: undefined }, false],
    ['unknown role', { ...job, identity: { ...job.identity, role: 'god' } }, false],
    ['non-viking target', { ...job, targets: ['/etc'] }, false],
    ['fractional limit', { ...job, limit: 1.5 }, false],
    ['filter as a list', { ...job, filter: [] }, false],
    ['levels with text', { ...job, levels: ['0'] }, false],
    ['an abstract total', { ...job, abstractChars: 4096 }, true],
    ['a fractional abstract total', { ...job, abstractChars: 1.5 }, false],
  ])('%s', (_name, data, ok) => {
    expect(isFindJob(data)).toBe(ok);
  });
});

describe('queryTerms', () => {
  it.each([
    [
      'drops function words, keeps content and identifiers',
      'What is the ERR_CONN_RESET in src/app.ts?',
      ['err_conn_reset', 'src/app.ts', 'src', 'app.ts'],
    ],
    ['segments Chinese and drops particles', '用户喜欢什么电影', ['用户', '喜欢', '电影']],
    ['only function words → nothing', 'what is the', []],
  ])('%s', (_name, query, terms) => {
    expect(queryTerms(query)).toEqual(terms);
  });

  it('keeps the first MAX_QUERY_TERMS distinct terms of a 200k-word query, in order', () => {
    const words = Array.from({ length: 200_000 }, (_, i) => `w${i % 100_000}x`);
    const terms = queryTerms(words.join(' '));
    expect(terms).toEqual(words.slice(0, MAX_QUERY_TERMS));
  });
});

describe('FindProcessor', () => {
  const make = (find: (j: FindJob) => Promise<unknown>) => new FindProcessor({ find } as unknown as FindService);

  it('passes a valid payload to the service and adds the job stage times', async () => {
    const result = { memories: [], resources: [], skills: [], total: 0 };
    const out = await make(async () => result).handle(job, { enqueuedAt: Date.now() - 5 });
    expect(out).toEqual({ ...result, stages: expect.objectContaining({ queue_wait: expect.any(Number) }) });
    expect(out.stages!.queue_wait).toBeGreaterThanOrEqual(5);
  });

  it('fails a malformed payload without retry', async () => {
    await expect(make(async () => null).handle({ query: 'x' })).rejects.toBeInstanceOf(UnrecoverableError);
  });

  it('reports domain and embedder failures with their code, permanently', async () => {
    const domain = make(async () => {
      throw invalidArgument('filter.field bad');
    });
    await expect(domain.handle(job)).rejects.toThrow(new UnrecoverableError('INVALID_ARGUMENT: filter.field bad'));
    const embed = make(async () => {
      throw new EmbedError(EmbedErrorCode.Unavailable, 'timeout', true);
    });
    await expect(embed.handle(job)).rejects.toThrow(
      new UnrecoverableError('UNAVAILABLE: embedding the query failed: timeout'),
    );
  });

  it('never passes a raw (database) error text to the caller', async () => {
    const boom = new Error('relation "nodes" does not exist');
    const err = await make(async () => {
      throw boom;
    })
      .handle(job)
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect((err as Error).message).toMatch(/^INTERNAL: find failed \(error id [0-9a-f-]{36}\)$/);
  });
});
