import { FakeLlmServer, startFakeLlmServer } from '@app/testing';
import { LlmClient } from './llm-client';
import { LlmError } from './llm.error';
import { LlmSettings } from './llm-settings';

const USER = [{ role: 'user' as const, content: 'hello' }];

describe('LlmClient against a real HTTP fake', () => {
  let fake: FakeLlmServer;
  let settings: LlmSettings;
  let client: LlmClient;

  beforeAll(async () => {
    fake = await startFakeLlmServer();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.reset();
    settings = { baseUrl: fake.url, apiKey: null, model: 'chat-model', plannerModel: 'planner-model' };
    client = new LlmClient(settings);
  });

  async function failure(p: Promise<unknown>): Promise<LlmError> {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LlmError);
    return err as LlmError;
  }

  it('returns the answer and that call’s usage, sending model and messages', async () => {
    fake.enqueue({ text: 'hi there', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const out = await client.complete(USER, { timeoutMs: 2000 });
    expect(out).toEqual({ text: 'hi there', usage: { prompt_tokens: 12, completion_tokens: 3 }, model: 'chat-model' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ path: '/v1/chat/completions', model: 'chat-model', messages: USER });
    expect(fake.requests[0].headers.authorization).toBe('Bearer no-key');
  });

  it('uses the planner model for planner calls and the configured API key', async () => {
    client = new LlmClient({ ...settings, apiKey: 'sk-test' });
    await client.complete(USER, { timeoutMs: 2000, model: 'planner' });
    expect(fake.requests[0].model).toBe('planner-model');
    expect(fake.requests[0].headers.authorization).toBe('Bearer sk-test');
  });

  it('falls back to the main model when no planner model is set', async () => {
    client = new LlmClient({ ...settings, plannerModel: null });
    expect(client.modelFor('planner')).toBe('chat-model');
    await client.complete(USER, { timeoutMs: 2000, model: 'planner' });
    expect(fake.requests[0].model).toBe('chat-model');
  });

  it('reports missing usage as null', async () => {
    fake.enqueue({ text: 'x', usage: null });
    expect((await client.complete(USER, { timeoutMs: 2000 })).usage).toBeNull();
  });

  it('keeps each concurrent call’s usage exact (no shared counter)', async () => {
    fake.respondWith((req) => {
      const n = Number(req.messages[0].content);
      return { text: `answer ${n}`, delayMs: (n * 37) % 120, usage: { prompt_tokens: n * 100, completion_tokens: n } };
    });
    const ns = Array.from({ length: 24 }, (_, i) => i + 1);
    const outs = await Promise.all(
      ns.map((n) => client.complete([{ role: 'user', content: String(n) }], { timeoutMs: 5000 })),
    );
    outs.forEach((out, i) => {
      expect(out.text).toBe(`answer ${ns[i]}`);
      expect(out.usage).toEqual({ prompt_tokens: ns[i] * 100, completion_tokens: ns[i] });
    });
  });

  it.each([
    { name: 'HTTP 500', reply: { status: 500 }, kind: 'http', status: 500, transient: true },
    { name: 'HTTP 503', reply: { status: 503 }, kind: 'http', status: 503, transient: true },
    { name: 'HTTP 429 (no retry)', reply: { status: 429 }, kind: 'http', status: 429, transient: true },
    { name: 'HTTP 400', reply: { status: 400 }, kind: 'http', status: 400, transient: false },
    { name: 'HTTP 401', reply: { status: 401 }, kind: 'http', status: 401, transient: false },
    { name: 'malformed JSON body', reply: { rawBody: '{"choices": [' }, kind: 'malformed', transient: false },
    {
      name: 'plain-text body',
      reply: { rawBody: 'garbage', contentType: 'text/plain' },
      kind: 'malformed',
      transient: false,
    },
    { name: 'JSON without choices', reply: { rawBody: '{"hello": "world"}' }, kind: 'malformed', transient: false },
    { name: 'dropped connection', reply: { hangUp: true }, kind: 'unavailable', transient: true },
  ])('$name → LlmError $kind (transient: $transient)', async ({ reply, kind, status, transient }) => {
    fake.enqueue(reply);
    const err = await failure(client.complete(USER, { timeoutMs: 2000 }));
    expect(err.kind).toBe(kind);
    expect(err.status).toBe(status);
    expect(err.transient).toBe(transient);
    expect(err.retryAfterMs).toBeUndefined();
    expect(fake.requests).toHaveLength(1);
  });

  it("reads a refusal's Retry-After, in seconds or as a date", async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '7' } });
    expect(await failure(client.complete(USER, { timeoutMs: 2000 }))).toMatchObject({ retryAfterMs: 7000 });
    fake.enqueue({ status: 503, headers: { 'retry-after': new Date(Date.now() + 60_000).toUTCString() } });
    const dated = await failure(client.complete(USER, { timeoutMs: 2000 }));
    expect(dated.retryAfterMs).toBeGreaterThan(50_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('times out at the deadline, not when the server finally answers', async () => {
    fake.enqueue({ text: 'late', delayMs: 3000 });
    const started = Date.now();
    const err = await failure(client.complete(USER, { timeoutMs: 300 }));
    const took = Date.now() - started;
    expect(err.kind).toBe('timeout');
    expect(err.transient).toBe(false);
    expect(took).toBeGreaterThanOrEqual(290);
    // Well before the server's answer at 3 s, with room for a loaded CI machine.
    expect(took).toBeLessThan(2500);
  });

  it('treats a caller abort as a timeout', async () => {
    fake.enqueue({ text: 'late', delayMs: 3000 });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    expect((await failure(client.complete(USER, { timeoutMs: 5000, signal: ctl.signal }))).kind).toBe('timeout');
  });

  it('is unavailable without a base URL or model, and when nothing listens', async () => {
    expect((await failure(new LlmClient({ ...settings, baseUrl: null }).complete(USER, { timeoutMs: 100 }))).kind).toBe(
      'unavailable',
    );
    expect(
      (
        await failure(
          new LlmClient({ ...settings, model: null, plannerModel: null }).complete(USER, { timeoutMs: 100 }),
        )
      ).kind,
    ).toBe('unavailable');
    const down = new LlmClient({ ...settings, baseUrl: 'http://127.0.0.1:1/v1' });
    expect((await failure(down.complete(USER, { timeoutMs: 2000 }))).kind).toBe('unavailable');
  });

  it('also answers on /chat/completions without the /v1 prefix', async () => {
    client = new LlmClient({ ...settings, baseUrl: fake.url.replace(/\/v1$/, '') });
    fake.enqueue('ok');
    expect((await client.complete(USER, { timeoutMs: 2000 })).text).toBe('ok');
    expect(fake.requests[0].path).toBe('/chat/completions');
  });
});
