import { DigestJob } from '@app/contracts';
import { LlmClient } from '@app/llm';
import { FakeLlmServer, startFakeLlmServer } from '@app/testing';
import { FUSE_GRACE_MS } from '../fuse/remaining-budget';
import { DigestService } from './digest.service';

const A = 'viking://user/u1/memories/events/a.md';
const B = 'viking://user/u1/memories/entities/b.md';
const OTHER_TENANT = 'viking://user/u2/memories/events/secret.md';

const job = (over: Partial<DigestJob> = {}): DigestJob => ({
  query: 'what did we decide about the cache?',
  rendered: `<memory uri="${A}" type="events" score="0.90" detail="full">\nWe chose Redis.\n</memory>`,
  validUris: [A, B],
  maxBullets: 6,
  timeoutMs: 2000,
  ...over,
});

describe('DigestService (real HTTP to a fake LLM)', () => {
  let fake: FakeLlmServer;
  let service: DigestService;

  beforeAll(async () => {
    fake = await startFakeLlmServer();
    service = new DigestService(
      new LlmClient({ baseUrl: fake.url, apiKey: null, model: 'chat', plannerModel: 'planner' }),
    );
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it.each([
    {
      name: 'star bullet normalised',
      text: `* fact source: ${A}`,
      status: 'ok',
      digest: `Memory digest:\n- fact source: ${A}`,
    },
    {
      name: 'Chinese citation marker accepted',
      text: `- 用 Redis 来源：${A}`,
      status: 'ok',
      digest: `Memory digest:\n- 用 Redis 来源：${A}`,
    },
    {
      name: 'only an unserved URI cited',
      text: '- fact source: viking://resources/elsewhere.md',
      status: 'failed',
      digest: '',
    },
    {
      name: 'a bullet citing another tenant is dropped',
      text: `- leaked source: ${OTHER_TENANT}\n- kept source: ${B}`,
      status: 'ok',
      digest: `Memory digest:\n- kept source: ${B}`,
    },
    { name: 'NO_RELEVANT_MEMORY', text: 'NO_RELEVANT_MEMORY', status: 'no_relevant', digest: '' },
    { name: 'prose without bullets', text: 'The memories say Redis.', status: 'failed', digest: '' },
  ])('$name → $status', async ({ text, status, digest }) => {
    fake.enqueue({ text, usage: { prompt_tokens: 321, completion_tokens: 17 } });
    const out = await service.digest(job());
    expect(out).toMatchObject({ status, digest, usage: { prompt_tokens: 321, completion_tokens: 17 } });
    expect(out.error === undefined).toBe(status !== 'failed');
    // The model answered: nothing for the gateway's circuit to count.
    expect(out.noAnswer).toBeUndefined();
  });

  it('max bullets 1 keeps the first cited bullet', async () => {
    fake.enqueue(`- one source: ${A}\n- two source: ${B}`);
    expect((await service.digest(job({ maxBullets: 1 }))).digest).toBe(`Memory digest:\n- one source: ${A}`);
    expect(fake.requests[0].messages[0].content).toContain('at most 1 bullet');
  });

  it('prompts the planner model with the query, the rendered block and the citation rules', async () => {
    fake.enqueue('NO_RELEVANT_MEMORY');
    await service.digest(job());
    const [req] = fake.requests;
    expect(req.model).toBe('planner');
    const [system, user] = req.messages;
    expect(system.role).toBe('system');
    expect(system.content).toMatch(/memory relevance compressor/);
    expect(system.content).toContain('source: viking://');
    expect(system.content).toContain('NO_RELEVANT_MEMORY');
    expect(system.content).toContain('at most 6 bullets');
    expect(user.content).toContain(job().query);
    expect(user.content).toContain(job().rendered);
  });

  it.each([
    { name: 'LLM 500', reply: { status: 500 }, error: /^http: / },
    { name: 'garbage body', reply: { rawBody: '<html>oops', contentType: 'text/html' }, error: /^malformed: / },
    { name: 'malformed JSON', reply: { rawBody: '{"choices":[{' }, error: /^malformed: / },
    { name: 'connection dropped', reply: { hangUp: true }, error: /^unavailable: / },
  ])('$name → failed with an error and no usage', async ({ reply, error }) => {
    fake.enqueue(reply);
    const out = await service.digest(job());
    expect(out).toMatchObject({ status: 'failed', digest: '', usage: null, noAnswer: true });
    expect(out.error).toMatch(error);
  });

  it('respects the payload fuse: a slow model is abandoned a short grace after timeoutMs', async () => {
    fake.enqueue({ text: `- late source: ${A}`, delayMs: 5000 });
    const started = Date.now();
    const out = await service.digest(job({ timeoutMs: 250 }));
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(250 + FUSE_GRACE_MS - 20);
    expect(took).toBeLessThan(250 + FUSE_GRACE_MS + 500);
    expect(out).toMatchObject({ status: 'failed', usage: null });
    expect(out.error).toMatch(/^timeout: /);
  });

  it("a withdrawn digest aborts the provider's request and rejects (no answer result for nobody)", async () => {
    fake.enqueue({ text: `- late source: ${A}`, delayMs: 5000 });
    const withdrawal = new AbortController();
    const out = service.digest(job({ timeoutMs: 4000 }), Date.now(), withdrawal.signal).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.requests).toHaveLength(1);
    withdrawal.abort();
    expect(await out).toMatchObject({ kind: 'timeout' });
    await new Promise((r) => setTimeout(r, 100));
    // The provider saw its request closed unanswered, well before the 5 s it would have taken.
    expect(fake.requests[0]?.abandonedAfterMs).toBeLessThan(1000);
  });

  it('subtracts the time spent queued, and skips the model once the fuse is gone', async () => {
    fake.enqueue({ text: `- late source: ${A}`, delayMs: 5000 });
    const started = Date.now();
    const out = await service.digest(job({ timeoutMs: 1000 }), Date.now() - 800);
    expect(Date.now() - started).toBeLessThan(200 + FUSE_GRACE_MS + 400);
    expect(out.error).toMatch(/^timeout: /);
    const expired = await service.digest(job({ timeoutMs: 1000 }), Date.now() - 1500);
    expect(expired).toMatchObject({ status: 'failed', usage: null });
    expect(fake.requests).toHaveLength(1);
  });

  it('reports each job’s own usage when digests run concurrently', async () => {
    fake.respondWith((req) => {
      const n = Number(/job (\d+)/.exec(req.messages[1].content)![1]);
      return {
        text: `- fact ${n} source: ${A}`,
        delayMs: (n * 53) % 150,
        usage: { prompt_tokens: 1000 + n, completion_tokens: n },
      };
    });
    const outs = await Promise.all(Array.from({ length: 16 }, (_, n) => service.digest(job({ query: `job ${n}` }))));
    outs.forEach((out, n) =>
      expect(out).toEqual({
        status: 'ok',
        digest: `Memory digest:\n- fact ${n} source: ${A}`,
        usage: { prompt_tokens: 1000 + n, completion_tokens: n },
      }),
    );
  });

  it('fails without a configured model, without calling anything', async () => {
    const unconfigured = new DigestService(
      new LlmClient({ baseUrl: null, apiKey: null, model: null, plannerModel: null }),
    );
    expect(await unconfigured.digest(job())).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^unavailable: /),
    });
  });
});
