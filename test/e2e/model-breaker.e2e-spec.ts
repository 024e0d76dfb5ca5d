// docs/limits-and-security.md, "A model that stops answering": a gateway's circuit for query expansion
// and for the digest, over real HTTP (gateway → BullMQ → rewriter → a fake OpenAI-protocol server).
import {
  FakeLlmReply,
  FakeLlmServer,
  isPlannerRequest,
  metricValue,
  startFakeLlmServer,
  startTestApp,
  TestApp,
} from '@app/testing';
import { context, seedMany } from './context-support';

const U = 'viking://user/default';
const NARWHAL = `${U}/memories/entities/narwhal.md`;
const INTENT_S = 3;
const COOLDOWN_S = 2;
const STRICT = { filter: { op: 'must', field: 'level', conds: [2] }, score_threshold: 0.25 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the model circuit of a gateway (expansion, digest)', () => {
  let fake: FakeLlmServer;
  let app: TestApp;
  let expandReply: FakeLlmReply | string = '{"queries": []}';
  let digestReply: FakeLlmReply | string = 'NO_RELEVANT_MEMORY';

  const plannerCalls = () => fake.requests.filter(isPlannerRequest).length;
  const digestCalls = () => fake.requests.filter((r) => !isPlannerRequest(r)).length;
  const ask = async (body: Record<string, unknown>) => {
    const r = await context(app, { query: 'narwhal', query_expansion: 'off', ...STRICT, ...body });
    expect(r.status).toBe(200);
    return r.body.result.stats as { query_expansion: string; rewrite: string };
  };
  const expand = () => ask({ session_id: 'talk', query_expansion: 'auto', dedup_turns: 0 });
  const metric = async (series: string) => (await metricValue(app.request, series)) ?? NaN;
  const openCount = (call: string) => metric(`muninn_model_calls_total{call="${call}",outcome="open"}`);
  const circuitOpen = (call: string) => metric(`muninn_model_circuit_open{call="${call}"}`);

  beforeAll(async () => {
    fake = await startFakeLlmServer({ fallback: (req) => (isPlannerRequest(req) ? expandReply : digestReply) });
    app = await startTestApp({
      env: {
        LLM_BASE_URL: fake.url,
        LLM_MODEL: 'chat-model',
        RECALL_INTENT_TIMEOUT_S: String(INTENT_S),
        RECALL_REWRITE_TIMEOUT_S: '3',
        MUNINN_MODEL_BREAKER_FAILURES: '2',
        MUNINN_MODEL_BREAKER_COOLDOWN_S: String(COOLDOWN_S),
      },
    });
    await seedMany(app, {}, { [NARWHAL]: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.' });
    expect((await app.request('POST', '/api/v1/sessions', { body: { session_id: 'talk' } })).status).toBe(200);
    const msg = { role: 'user', content: 'we talked about narwhals' };
    expect((await app.request('POST', '/api/v1/sessions/talk/messages', { body: msg })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('expansion: after two calls past the fuse none is made until the cool-down; then one call finds out, the others do not wait for it', async () => {
    expandReply = { text: '{"queries": []}', delayMs: 10_000 };
    expect(await circuitOpen('expand')).toBe(0);
    expect((await expand()).query_expansion).toBe('failed');
    expect((await expand()).query_expansion).toBe('failed');
    expect(plannerCalls()).toBe(2);
    // Open: the request degrades at once, and the model is not called.
    expect((await expand()).query_expansion).toBe('failed');
    expect(plannerCalls()).toBe(2);
    expect(await openCount('expand')).toBe(1);
    expect(await circuitOpen('expand')).toBe(1);

    // The model answers again, slowly: after the cool-down the first request's call finds out, and the
    // requests meanwhile go without expansion rather than wait.
    expandReply = { text: '{"queries": ["narwhal tusk"]}', delayMs: 1500 };
    await sleep(COOLDOWN_S * 1000 + 200);
    const together = await Promise.all([expand(), expand(), expand()]);
    expect(plannerCalls()).toBe(3);
    expect(together.map((s) => s.query_expansion).sort()).toEqual(['failed', 'failed', 'used']);
    expect(await openCount('expand')).toBe(3);
    // Closed again: every request calls the model.
    expandReply = '{"queries": ["narwhal tusk"]}';
    expect((await expand()).query_expansion).toBe('used');
    expect((await expand()).query_expansion).toBe('used');
    expect(plannerCalls()).toBe(5);
    expect(await circuitOpen('expand')).toBe(0);
  });

  it('digest: answers without a usable bullet do not open it; a model failing every call does', async () => {
    // The model answers, citing nothing served: each digest fails, and each is still asked for.
    digestReply = '- fact source: viking://resources/never-served.md';
    for (let i = 0; i < 3; i++) expect((await ask({ rewrite: true })).rewrite).toBe('failed');
    expect(digestCalls()).toBe(3);
    digestReply = { status: 500 };
    expect((await ask({ rewrite: true })).rewrite).toBe('failed');
    expect((await ask({ rewrite: true })).rewrite).toBe('failed');
    expect(digestCalls()).toBe(5);
    expect((await ask({ rewrite: true })).rewrite).toBe('failed');
    expect(digestCalls()).toBe(5);
    expect(await openCount('digest')).toBe(1);
    expect([await circuitOpen('digest'), await circuitOpen('expand')]).toEqual([1, 0]);
    // The expansion circuit is its own: still closed.
    expect((await expand()).query_expansion).toBe('used');

    digestReply = `- fact source: ${NARWHAL}`;
    await sleep(COOLDOWN_S * 1000 + 200);
    expect((await ask({ rewrite: true })).rewrite).toBe('ok');
    expect((await ask({ rewrite: true })).rewrite).toBe('ok');
    expect(digestCalls()).toBe(7);
  });
});
