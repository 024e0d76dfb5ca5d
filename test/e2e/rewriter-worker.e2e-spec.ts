import { DigestJob, ExpandJob, FindJob, QueueName } from '@app/contracts';
import { KernelError, KernelErrorCode, plannedQueries } from '@app/kernel';
import { JobBus } from '@app/queue';
import { FakeLlmServer, startFakeLlmServer, startTestApp, TestApp } from '@app/testing';
import { DigestProcessor } from '../../apps/rewriter/src/digest/digest.processor';
import { FUSE_GRACE_MS } from '../../apps/rewriter/src/fuse/remaining-budget';

const A = 'viking://user/default/memories/events/cache.md';
const B = 'viking://user/default/memories/entities/redis.md';
const OTHER_TENANT = 'viking://user/mallory/memories/events/secret.md';

const digestJob = (over: Partial<DigestJob> = {}): DigestJob => ({
  query: 'which cache did we pick?',
  rendered: `<memory uri="${A}" type="events" score="0.91" detail="full">\nWe picked Redis for the ledger.\n</memory>`,
  validUris: [A, B],
  maxBullets: 6,
  timeoutMs: 5000,
  ...over,
});
const expandJob = (over: Partial<ExpandJob> = {}): ExpandJob => ({
  query: 'and how do I start it?',
  latestArchiveOverview: 'Setting up the muninn rewriter worker.',
  recentMessages: [{ role: 'user', content: 'we built the rewriter' }],
  timeoutMs: 5000,
  ...over,
});
const findJob: FindJob = {
  identity: { accountId: 'default', userId: 'default', role: 'root', actorPeerId: null },
  query: 'anything',
  targets: ['viking://user/default/memories'],
  filter: null,
  levels: null,
  limit: 5,
  scoreThreshold: null,
};

describe('rewriter worker through the real BullMQ queues (standalone app, fake LLM over HTTP)', () => {
  let fake: FakeLlmServer;
  let app: TestApp;
  let bus: JobBus;

  beforeAll(async () => {
    fake = await startFakeLlmServer();
    app = await startTestApp({
      env: { LLM_BASE_URL: fake.url, LLM_MODEL: 'chat-model', QUERY_PLANNER_MODEL: 'planner-model' },
    });
    bus = app.nest.get(JobBus);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  const digest = (job: DigestJob, timeoutMs = 10_000) => bus.call(QueueName.Digest, job, { timeoutMs });

  it('digest: `* fact source: <uri>` → ok, normalised, with that call’s usage', async () => {
    fake.enqueue({ text: `* fact source: ${A}`, usage: { prompt_tokens: 211, completion_tokens: 9 } });
    expect(await digest(digestJob())).toEqual({
      status: 'ok',
      digest: `Memory digest:\n- fact source: ${A}`,
      usage: { prompt_tokens: 211, completion_tokens: 9 },
    });
    expect(fake.requests[0].model).toBe('planner-model');
  });

  it.each([
    {
      name: 'NO_RELEVANT_MEMORY → no_relevant',
      reply: { text: 'NO_RELEVANT_MEMORY' },
      status: 'no_relevant',
      digest: '',
    },
    {
      name: 'a bullet citing another tenant is dropped',
      reply: { text: `- leak source: ${OTHER_TENANT}\n- kept source: ${B}` },
      status: 'ok',
      digest: `Memory digest:\n- kept source: ${B}`,
    },
    {
      name: 'only unserved citations → failed',
      reply: { text: `- leak source: ${OTHER_TENANT}` },
      status: 'failed',
      digest: '',
    },
    { name: 'LLM 500 → failed', reply: { status: 500 }, status: 'failed', digest: '' },
    {
      name: 'garbage body → failed',
      reply: { rawBody: '\u0000garbage', contentType: 'application/octet-stream' },
      status: 'failed',
      digest: '',
    },
  ])('digest: $name', async ({ reply, status, digest: expected }) => {
    fake.enqueue(reply);
    const out = await digest(digestJob());
    expect(out).toMatchObject({ status, digest: expected });
  });

  it('digest: max bullets 1 keeps one bullet', async () => {
    fake.enqueue(`- one source: ${A}\n- two source: ${B}`);
    expect((await digest(digestJob({ maxBullets: 1 }))).digest).toBe(`Memory digest:\n- one source: ${A}`);
  });

  it('digest: the worker gives up a short grace after the payload fuse even when the caller waits longer', async () => {
    fake.enqueue({ text: `- late source: ${A}`, delayMs: 8000 });
    const started = Date.now();
    const out = await digest(digestJob({ timeoutMs: 400 }), 10_000);
    expect(Date.now() - started).toBeLessThan(400 + FUSE_GRACE_MS + 1000);
    expect(out).toMatchObject({ status: 'failed', usage: null, error: expect.stringMatching(/^timeout: /) });
  });

  it('digest: concurrent jobs each carry their own exact usage', async () => {
    fake.respondWith((req) => {
      const n = Number(/job (\d+)/.exec(req.messages[1].content)![1]);
      return {
        text: `- fact ${n} source: ${A}`,
        delayMs: (n * 41) % 200,
        usage: { prompt_tokens: 500 + n, completion_tokens: 2 * n },
      };
    });
    const outs = await Promise.all(Array.from({ length: 12 }, (_, n) => digest(digestJob({ query: `job ${n}` }))));
    outs.forEach((out, n) => expect(out.usage).toEqual({ prompt_tokens: 500 + n, completion_tokens: 2 * n }));
  });

  it('expand: raw planner queries come back; query expansion keeps the original plus the first 2 new ones', async () => {
    fake.enqueue({
      text: '{"queries": ["start the rewriter", "npm run start:rewriter", "docker compose up rewriter"]}',
      usage: { prompt_tokens: 70, completion_tokens: 20 },
    });
    const out = await bus.call(QueueName.Expand, expandJob(), { timeoutMs: 10_000 });
    expect(out).toEqual({
      queries: ['start the rewriter', 'npm run start:rewriter', 'docker compose up rewriter'],
      usage: { prompt_tokens: 70, completion_tokens: 20 },
    });
    expect(plannedQueries('and how do I start it?', out.queries)).toEqual([
      'and how do I start it?',
      'start the rewriter',
      'npm run start:rewriter',
    ]);
    expect(fake.requests[0].messages[1].content).toContain('Setting up the muninn rewriter worker.');
  });

  it.each([
    { name: 'LLM 500', reply: { status: 500 }, code: 'UNAVAILABLE' },
    { name: 'slower than the payload fuse', reply: { text: '[]', delayMs: 8000 }, code: 'DEADLINE_EXCEEDED' },
  ])('expand: $name → the job fails (the gateway reports "failed")', async ({ reply, code }) => {
    fake.enqueue(reply);
    const err = (await bus
      .call(QueueName.Expand, expandJob({ timeoutMs: 400 }), { timeoutMs: 10_000 })
      .catch((e: unknown) => e)) as Error;
    // The job bus decodes a worker's coded failure back into the domain error it stood for.
    expect(err).toBeInstanceOf(KernelError);
    expect((err as KernelError).code).toBe(code);
  });

  // Last: it stops the digest worker of this app.
  it('with the digest worker stopped, a digest call hits its fuse with DEADLINE_EXCEEDED; other queues are unaffected', async () => {
    await app.nest.get(DigestProcessor).worker.close();
    const started = Date.now();
    const err = await digest(digestJob({ timeoutMs: 1000 }), 1000).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(KernelError);
    expect((err as KernelError).code).toBe(KernelErrorCode.DeadlineExceeded);
    expect(took).toBeGreaterThanOrEqual(950);
    // Ends at its fuse, not after it (the margin is for a second suite on the same two cores).
    expect(took).toBeLessThan(2500);
    expect(fake.requests).toHaveLength(0);

    fake.enqueue('["still planning"]');
    await expect(bus.call(QueueName.Expand, expandJob(), { timeoutMs: 5000 })).resolves.toMatchObject({
      queries: ['still planning'],
    });
    await expect(bus.call(QueueName.Find, findJob, { timeoutMs: 5000 })).resolves.toMatchObject({
      total: expect.any(Number),
    });
    const http = await app.request('POST', '/api/v1/search/find', { body: { query: 'anything' } });
    expect(http.status).toBe(200);
  });
});
