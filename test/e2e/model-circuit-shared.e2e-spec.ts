// docs/limits-and-security.md, "A model that stops answering": the circuits of a deployment's processes
// are shared through Redis. Two gateways of one deployment (a standalone process, which also runs the
// workers, and a second gateway process) on one PostgreSQL store and one queue prefix; a fake
// OpenAI-protocol planner that holds every call past the expansion's fuse (2 s on the first gateway, 10 s
// on the second, so a call of the second's is still in flight when the first's circuit opens).
import {
  buildDist,
  createTestDatabase,
  eventually,
  FakeLlmReply,
  FakeLlmServer,
  isPlannerRequest,
  metricValue,
  ServingProcess,
  startFakeLlmServer,
  startServing,
  TestDatabase,
  TestRequest,
} from '@app/testing';

const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;
const COOLDOWN_S = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

suite('the model circuits of two gateways (real processes)', () => {
  let db: TestDatabase;
  let fake: FakeLlmServer;
  let first: TestRequest;
  let second: TestRequest;
  const procs: ServingProcess[] = [];
  let env: Record<string, string>;
  let plannerReply: FakeLlmReply = { text: '{"queries": []}', delayMs: 20_000 };

  const plannerCalls = () => fake.requests.filter(isPlannerRequest).length;
  const ask = async (gateway: TestRequest) => {
    const r = await gateway('POST', '/api/v1/search/search', {
      body: { query: 'narwhal', mode: 'context', session_id: 'talk', query_expansion: 'auto', dedup_turns: 0 },
    });
    expect(r.status).toBe(200);
    return r.body.result as { entries: { uri: string }[]; stats: { query_expansion: string } };
  };
  const circuitOpen = async (gateway: TestRequest) =>
    (await metricValue(gateway, 'muninn_model_circuit_open{call="expand"}')) ?? NaN;
  const expandCalls = async (gateway: TestRequest, outcome: string) =>
    (await metricValue(gateway, `muninn_model_calls_total{call="expand",outcome="${outcome}"}`)) ?? 0;

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    fake = await startFakeLlmServer({
      fallback: (req) => (isPlannerRequest(req) ? plannerReply : 'NO_RELEVANT_MEMORY'),
    });
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL as string,
      MUNINN_QUEUE_PREFIX: `circuit-shared-${process.pid}-${Date.now()}`,
      LLM_BASE_URL: fake.url,
      LLM_MODEL: 'chat-model',
      RECALL_INTENT_TIMEOUT_S: '2',
      MUNINN_MODEL_BREAKER_FAILURES: '2',
      MUNINN_MODEL_BREAKER_COOLDOWN_S: String(COOLDOWN_S),
    };
    procs.push(await startServing('standalone', env));
    procs.push(await startServing('gateway', { ...env, RECALL_INTENT_TIMEOUT_S: '10' }));
    [first, second] = procs.map((p) => p.request);
    const w = await first('POST', '/api/v1/content/write', {
      body: {
        uri: 'viking://user/default/memories/entities/narwhal.md',
        content: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.',
        mode: 'create',
        wait: true,
      },
    });
    expect(w.status).toBe(200);
    expect((await first('POST', '/api/v1/sessions', { body: { session_id: 'talk' } })).status).toBe(200);
    const msg = { role: 'user', content: 'we talked about narwhals' };
    expect((await first('POST', '/api/v1/sessions/talk/messages', { body: msg })).status).toBe(200);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.proc.kill('SIGKILL')));
    await fake?.close();
    await db?.drop();
  });

  it("one gateway's circuit keeps the other from calling the planner until its own call finds the planner back", async () => {
    expect(await circuitOpen(second)).toBe(0);
    // A request on the second gateway waits for the planner, its fuse 10 s away.
    const inFlight = ask(second);
    await eventually(async () => plannerCalls() === 1, { ms: 5000, pollMs: 50 });
    // The first gateway's two calls run past their 2 s fuse: its circuit opens.
    for (let i = 2; i <= 3; i++) {
      expect((await ask(first)).stats.query_expansion).toBe('failed');
      expect(plannerCalls()).toBe(i);
    }
    const opened = Date.now();
    expect(await circuitOpen(first)).toBe(1);
    // The second gateway's request in flight is let go then, served without expansion, not past its fuse.
    const cut = await inFlight;
    expect(cut.stats.query_expansion).toBe('failed');
    expect(cut.entries.map((e) => e.uri)).toContain('viking://user/default/memories/entities/narwhal.md');
    expect(await expandCalls(second, 'cut')).toBe(1);
    expect(await expandCalls(second, 'timeout')).toBe(0);
    // Its job was withdrawn: the rewriter (in the first process) aborted the provider's request then, not at
    // its own fuse 10 s after it began.
    const firstCall = () => fake.requests.filter(isPlannerRequest)[0]?.abandonedAfterMs;
    await eventually(async () => firstCall() !== undefined, { ms: 3000, pollMs: 50 });
    expect(firstCall()).toBeLessThan(9000);
    // The second gateway never saw a call fail, yet makes none; the memory is served without expansion.
    await eventually(async () => (await circuitOpen(second)) === 1, { ms: 3000, pollMs: 100 });
    for (let i = 0; i < 3; i++) {
      const r = await ask(second);
      expect(r.stats.query_expansion).toBe('failed');
      expect(r.entries.map((e) => e.uri)).toContain('viking://user/default/memories/entities/narwhal.md');
    }
    expect(plannerCalls()).toBe(3);

    // A gateway started now (scaled out during the outage) reads the opening kept in Redis: held at once.
    const started = await startServing('gateway', env);
    procs.push(started);
    const third = started.request;
    await eventually(async () => (await circuitOpen(third)) === 1, { ms: 3000, pollMs: 100 });
    expect((await ask(third)).stats.query_expansion).toBe('failed');
    expect(plannerCalls()).toBe(3);

    // Past the first gateway's cool-down the second still waits for its word: one call finds out, not two.
    plannerReply = { text: '{"queries": ["narwhal tusk"]}' };
    await sleep(Math.max(0, opened + COOLDOWN_S * 1000 + 300 - Date.now()));
    expect((await ask(second)).stats.query_expansion).toBe('failed');
    expect(plannerCalls()).toBe(3);
    // The first gateway's call finds the planner back; the second gateway's circuit closes with it.
    expect((await ask(first)).stats.query_expansion).toBe('used');
    expect(plannerCalls()).toBe(4);
    await eventually(async () => (await circuitOpen(second)) === 0, { ms: 2000, pollMs: 100 });
    await eventually(async () => (await circuitOpen(third)) === 0, { ms: 2000, pollMs: 100 });
    expect((await ask(second)).stats.query_expansion).toBe('used');
    expect(plannerCalls()).toBe(5);
  });
});
