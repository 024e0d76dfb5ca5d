// docs/contract.md#query-expansion and #digest-rewrite over real HTTP: gateway → BullMQ →
// rewriter worker → a fake OpenAI-compatible LLM on a real port. Fuses are shortened through the
// environment (RECALL_INTENT_TIMEOUT_S, RECALL_REWRITE_TIMEOUT_S) to keep the suite fast.
import { QueueName } from '@app/contracts';
import {
  FakeLlmReply,
  FakeLlmRequest,
  FakeLlmServer,
  isPlannerRequest,
  startFakeLlmServer,
  startTestApp,
  TestApp,
} from '@app/testing';
import { DigestProcessor } from '../../apps/rewriter/src/digest/digest.processor';
import { ExpandProcessor } from '../../apps/rewriter/src/expand/expand.processor';
import { context, entriesOf, JobSpy, seedMany, urisOf } from './context-support';

const U = 'viking://user/default';
const STRICT = { filter: { op: 'must', field: 'level', conds: [2] }, score_threshold: 0.25 };
const NARWHAL = `${U}/memories/entities/narwhal.md`;
const NARWHAL_TUSK = `${U}/memories/events/narwhal-tusk.md`;
const OTHER_TENANT = 'viking://user/mallory/memories/entities/narwhal.md';
const INTENT_S = 1;
const REWRITE_S = 2;

type Reply = FakeLlmReply | string;
/** Routes the fake LLM's calls: the planner prompt (expand) and the compressor prompt (digest). */
const route =
  (r: { expand?: Reply; digest?: Reply }) =>
  (req: FakeLlmRequest): Reply => {
    return (isPlannerRequest(req) ? r.expand : r.digest) ?? { status: 599 };
  };

describe('context expansion and rewrite', () => {
  let fake: FakeLlmServer;
  let app: TestApp;
  let spy: JobSpy;

  const ask = async (body: Record<string, unknown>) => {
    const r = await context(app, { query_expansion: 'off', ...STRICT, ...body });
    expect(r.status).toBe(200);
    return r;
  };
  const sessionWithMessages = async (sid: string, n: number) => {
    expect((await app.request('POST', '/api/v1/sessions', { body: { session_id: sid } })).status).toBe(200);
    for (let i = 0; i < n; i++) {
      const r = await app.request('POST', `/api/v1/sessions/${sid}/messages`, {
        body: { role: i % 2 ? 'assistant' : 'user', content: `we talked about narwhals ${i}` },
      });
      expect(r.status).toBe(200);
    }
  };

  beforeAll(async () => {
    fake = await startFakeLlmServer();
    app = await startTestApp({
      env: {
        LLM_BASE_URL: fake.url,
        LLM_MODEL: 'chat-model',
        RECALL_INTENT_TIMEOUT_S: String(INTENT_S),
        RECALL_REWRITE_TIMEOUT_S: String(REWRITE_S),
      },
    });
    spy = new JobSpy(app);
    await seedMany(
      app,
      {},
      {
        [NARWHAL]: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.',
        [NARWHAL_TUSK]: 'We measured the narwhal tusk at 2.4 metres on the July survey.',
      },
    );
  });
  afterAll(async () => {
    await spy?.close();
    await app?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  describe('expansion', () => {
    it('intent disabled server-side → off, the raw query, and no session created', async () => {
      const off = await startTestApp({
        env: { LLM_BASE_URL: fake.url, LLM_MODEL: 'chat-model', RETRIEVAL_ENABLE_INTENT: 'false' },
      });
      try {
        const r = await context(off, { query: 'narwhal', session_id: 's54', query_expansion: 'auto', dedup_turns: 0 });
        expect(r.status).toBe(200);
        expect(r.body.result.stats.query_expansion).toBe('off');
        expect(r.body.result.stats.planned_queries).toEqual(['narwhal']);
        expect((await off.request('GET', '/api/v1/sessions/s54')).status).toBe(404);
        expect(fake.requests).toHaveLength(0);
      } finally {
        await off.close();
      }
    });

    it('3 planner queries → original + first 2 distinct, each searched in every scope; status used', async () => {
      await sessionWithMessages('s55', 3);
      fake.respondWith(
        route({ expand: '{"queries": ["narwhal tusk length", "narwhal", "arctic whale survey", "fourth query"]}' }),
      );
      const r = await ask({ query: 'narwhal', session_id: 's55', query_expansion: 'auto' });
      expect(r.body.result.stats.query_expansion).toBe('used');
      expect(r.body.result.stats.planned_queries).toEqual(['narwhal', 'narwhal tusk length', 'arctic whale survey']);
      const planner = fake.requests.find(isPlannerRequest)!;
      expect(planner.messages[1].content).toContain('we talked about narwhals 2');
      const scopes = async (q: string) => (await spy.finds(q)).map((f) => JSON.stringify(f.data.targets)).sort();
      const original = await scopes('narwhal');
      expect(original.length).toBeGreaterThan(0);
      expect(await scopes('narwhal tusk length')).toEqual(original);
      expect(await scopes('arctic whale survey')).toEqual(original);
      expect(await scopes('fourth query')).toEqual([]);
    });

    it('a planner slower than the fuse → failed, the raw query, still 200 within the fuse', async () => {
      await sessionWithMessages('s56', 2);
      fake.respondWith(route({ expand: { text: '["too late"]', delayMs: 5000 } }));
      const started = Date.now();
      const r = await ask({ query: 'narwhal', session_id: 's56', query_expansion: 'auto' });
      expect(Date.now() - started).toBeLessThan(INTENT_S * 1000 + 3000);
      expect(r.body.result.stats.query_expansion).toBe('failed');
      expect(r.body.result.stats.planned_queries).toEqual(['narwhal']);
      expect(urisOf(r).length).toBeGreaterThan(0);
    });

    it('a planner answering 500 → failed, the raw query', async () => {
      await sessionWithMessages('s56b', 2);
      fake.respondWith(route({ expand: { status: 500 } }));
      const r = await ask({ query: 'narwhal', session_id: 's56b', query_expansion: 'auto' });
      expect(r.body.result.stats.query_expansion).toBe('failed');
      expect(r.body.result.stats.planned_queries).toEqual(['narwhal']);
    });
  });

  describe('digest rewrite', () => {
    it('`* fact source: <served uri>` → the normalised digest, ok, exact usage, rendered unchanged', async () => {
      const plain = await ask({ query: 'narwhal tusk' });
      expect(urisOf(plain)).toContain(NARWHAL);
      fake.respondWith(
        route({ digest: { text: `* fact source: ${NARWHAL}`, usage: { prompt_tokens: 345, completion_tokens: 12 } } }),
      );
      const r = await ask({ query: 'narwhal tusk', rewrite: true });
      expect(r.body.result.digest).toBe(`Memory digest:\n- fact source: ${NARWHAL}`);
      expect(r.body.result.stats.rewrite).toBe('ok');
      expect(r.body.result.stats.rewrite_usage).toEqual({ prompt_tokens: 345, completion_tokens: 12 });
      expect(r.body.result.rendered).toBe(plain.body.result.rendered);
      const [call] = fake.requests;
      expect(call.messages[1].content).toContain(plain.body.result.rendered);
    });

    it('only an unserved URI cited → failed, no digest, rendered intact', async () => {
      fake.respondWith(route({ digest: '- fact source: viking://resources/never-served.md' }));
      const r = await ask({ query: 'narwhal tusk', rewrite: true });
      expect(r.body.result.stats.rewrite).toBe('failed');
      expect(r.body.result.digest).toBe('');
      expect(r.body.result.rendered).toContain(NARWHAL);
    });

    it('a bullet citing another tenant’s URI is dropped, the rest kept', async () => {
      fake.respondWith(route({ digest: `- leaked source: ${OTHER_TENANT}\n- kept source: ${NARWHAL}` }));
      const r = await ask({ query: 'narwhal tusk', rewrite: true });
      expect(r.body.result.stats.rewrite).toBe('ok');
      expect(r.body.result.digest).toBe(`Memory digest:\n- kept source: ${NARWHAL}`);
    });

    it('NO_RELEVANT_MEMORY → no_relevant, digest and rendered blank, entries kept, nothing cooled', async () => {
      fake.respondWith(route({ digest: 'NO_RELEVANT_MEMORY' }));
      const r = await ask({ query: 'narwhal tusk', rewrite: true, session_id: 's59', dedup_turns: 5 });
      expect(r.body.result.stats.rewrite).toBe('no_relevant');
      expect(r.body.result.digest).toBe('');
      expect(r.body.result.rendered).toBe('');
      expect(entriesOf(r).length).toBeGreaterThan(0);
      const next = await ask({ query: 'narwhal tusk', session_id: 's59', dedup_turns: 5 });
      expect(next.body.result.stats.dedup.cooled).toBe(0);
      expect(urisOf(next)).toEqual(urisOf(r));
    });

    it('a model slower than the fuse → timeout within the fuse, rendered intact', async () => {
      fake.respondWith(route({ digest: { text: `- late source: ${NARWHAL}`, delayMs: 6000 } }));
      const started = Date.now();
      const r = await ask({ query: 'narwhal tusk', rewrite: true });
      expect(Date.now() - started).toBeLessThan(REWRITE_S * 1000 + 2000);
      expect(r.body.result.stats.rewrite).toBe('timeout');
      expect(r.body.result.stats.rewrite_usage).toBeNull();
      expect(r.body.result.digest).toBe('');
      expect(r.body.result.rendered).toContain(NARWHAL);
    });

    it.each([
      { name: 'LLM 500', reply: { status: 500 } },
      { name: 'garbage body', reply: { rawBody: 'Service Unavailable <html>', contentType: 'text/html' } },
      { name: 'malformed JSON', reply: { rawBody: '{"choices": [{"message": ' } },
    ])('$name → failed, rendered intact', async ({ reply }) => {
      fake.respondWith(route({ digest: reply }));
      const r = await ask({ query: 'narwhal tusk', rewrite: true });
      expect(r.body.result.stats.rewrite).toBe('failed');
      expect(r.body.result.digest).toBe('');
      expect(r.body.result.rendered).toContain(NARWHAL);
    });

    it('rewrite_max_bullets 1 with a two-bullet answer → one bullet', async () => {
      fake.respondWith(route({ digest: `- one source: ${NARWHAL}\n- two source: ${NARWHAL_TUSK}` }));
      const r = await ask({ query: 'narwhal tusk', rewrite: true, rewrite_max_bullets: 1 });
      expect(r.body.result.digest).toBe(`Memory digest:\n- one source: ${NARWHAL}`);
    });

    it.each([
      { name: '"yes"', rewrite: 'yes', status: 'ok' },
      { name: '"auto" with a planner configured', rewrite: 'auto', status: 'ok' },
      { name: '"off"', rewrite: 'off', status: 'off' },
    ])('lax rewrite flag $name → $status', async ({ rewrite, status }) => {
      fake.respondWith(route({ digest: `- fact source: ${NARWHAL}` }));
      const r = await ask({ query: 'narwhal tusk', rewrite });
      expect(r.body.result.stats.rewrite).toBe(status);
    });

    it('concurrent requests each report their own call’s usage', async () => {
      fake.respondWith((req) => {
        const n = Number(/narwhal tusk (\d+)/.exec(req.messages[1].content)?.[1] ?? -1);
        return {
          text: `- fact ${n} source: ${NARWHAL}`,
          delayMs: (n * 61) % 300,
          usage: { prompt_tokens: 100 + n, completion_tokens: n },
        };
      });
      const rs = await Promise.all(
        Array.from({ length: 6 }, (_, n) => ask({ query: `narwhal tusk ${n}`, rewrite: true })),
      );
      rs.forEach((r, n) =>
        expect(r.body.result.stats.rewrite_usage).toEqual({ prompt_tokens: 100 + n, completion_tokens: n }),
      );
    });
  });

  /** An app whose account may spend `tokens` model tokens a day, holding the narwhal memory. */
  const budgetedApp = async (tokens: number) => {
    const budgeted = await startTestApp({
      env: {
        LLM_BASE_URL: fake.url,
        LLM_MODEL: 'chat-model',
        RECALL_INTENT_TIMEOUT_S: String(INTENT_S),
        RECALL_REWRITE_TIMEOUT_S: String(REWRITE_S),
        MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY: String(tokens),
      },
    });
    await seedMany(
      budgeted,
      {},
      { [NARWHAL]: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.' },
    );
    return budgeted;
  };
  const modelOf = async (a: TestApp) => (await a.request('GET', '/api/v1/system/status')).body.result.model;

  it("an account's model budget spent: expansion and digest make no call and degrade, the status counts the day", async () => {
    const budgeted = await budgetedApp(300);
    try {
      const model = () => modelOf(budgeted);
      fake.respondWith(
        route({
          expand: '{"queries": ["arctic whale"]}',
          digest: { text: `* fact source: ${NARWHAL}`, usage: { prompt_tokens: 345, completion_tokens: 12 } },
        }),
      );
      const ask = (body: Record<string, unknown>) => context(budgeted, { ...STRICT, query: 'narwhal tusk', ...body });
      expect((await ask({ rewrite: true, query_expansion: 'off' })).body.result.stats.rewrite).toBe('ok');
      expect(await model()).toEqual({ tokens_today: 357, max_tokens_per_day: 300 });
      const calls = fake.requests.length;
      // Spent: the next digest is not asked for; the block is served as it is.
      const after = await ask({ rewrite: true, query_expansion: 'off' });
      expect(after.body.result.stats.rewrite).toBe('failed');
      expect(after.body.result.rendered).toContain(NARWHAL);
      // Nor is the planner, for a session with messages: the raw query is searched.
      await budgeted.request('POST', '/api/v1/sessions/budget-s/messages', {
        body: { role: 'user', content: 'we talked about narwhals' },
      });
      const expanded = await ask({ session_id: 'budget-s', query_expansion: 'auto', dedup_turns: 0 });
      expect(expanded.body.result.stats.query_expansion).toBe('failed');
      expect(fake.requests.length).toBe(calls);
      // The operator sees the same in /metrics: the tokens by call, and the calls the budget refused.
      const metrics = (await budgeted.request('GET', '/metrics')).text;
      expect(metrics).toMatch(/^muninn_model_tokens_total\{call="digest"\} 357$/m);
      expect(metrics).toMatch(/^muninn_model_calls_total\{call="digest",outcome="ok"\} 1$/m);
      expect(metrics).toMatch(/^muninn_model_calls_total\{call="digest",outcome="budget"\} 1$/m);
      expect(metrics).toMatch(/^muninn_model_calls_total\{call="expand",outcome="budget"\} 1$/m);
    } finally {
      await budgeted.close();
    }
  });

  it('digests asked for at once see each other in the budget: one call, not one per request', async () => {
    const budgeted = await budgetedApp(1);
    try {
      fake.respondWith(
        route({
          digest: {
            text: `* fact source: ${NARWHAL}`,
            usage: { prompt_tokens: 345, completion_tokens: 12 },
            delayMs: 300,
          },
        }),
      );
      const rs = await Promise.all(
        Array.from({ length: 4 }, (_, n) =>
          context(budgeted, { ...STRICT, query: `narwhal tusk ${n}`, rewrite: true }),
        ),
      );
      // Each reserves its prompt's estimate before the call, so the three after the first find the day
      // spent (with the count read before each call and added after, all four were sent).
      expect(rs.map((r) => r.body.result.stats.rewrite).sort()).toEqual(['failed', 'failed', 'failed', 'ok']);
      rs.forEach((r) => expect(r.body.result.rendered).toContain(NARWHAL));
      expect(fake.requests).toHaveLength(1);
      expect(await modelOf(budgeted)).toEqual({ tokens_today: 357, max_tokens_per_day: 1 });
    } finally {
      await budgeted.close();
    }
  });

  it('a digest past its fuse still counts its prompt (the model was asked); the day is then spent', async () => {
    const budgeted = await budgetedApp(10);
    try {
      fake.respondWith(route({ digest: { text: `* fact source: ${NARWHAL}`, delayMs: REWRITE_S * 1000 + 1500 } }));
      const late = await context(budgeted, { ...STRICT, query: 'narwhal tusk', rewrite: true });
      expect(late.body.result.stats.rewrite).toBe('timeout');
      expect((await budgeted.request('GET', '/metrics')).text).toMatch(
        /^muninn_model_calls_total\{call="digest",outcome="timeout"\} 1$/m,
      );
      const { tokens_today } = await modelOf(budgeted);
      // The reservation, the estimate of the query and the block sent, stays counted.
      expect(tokens_today).toBeGreaterThanOrEqual(10);
      expect(tokens_today).toBeLessThan(1000);
      const calls = fake.requests.length;
      expect((await context(budgeted, { ...STRICT, query: 'narwhal', rewrite: true })).body.result.stats.rewrite).toBe(
        'failed',
      );
      expect(fake.requests.length).toBe(calls);
    } finally {
      await budgeted.close();
    }
  });

  it('a digest that times out waiting for a rewriter gives its reservation back: the model was never asked', async () => {
    const budgeted = await budgetedApp(100_000);
    try {
      // No rewriter takes the job: it waits in the queue until the deadline withdraws it.
      await budgeted.nest.get(DigestProcessor).worker.close();
      const r = await context(budgeted, { ...STRICT, query: 'narwhal tusk', rewrite: true });
      expect(r.body.result.stats.rewrite).toBe('timeout');
      expect(fake.requests).toHaveLength(0);
      // Counted as a timeout, at no tokens: the day is not charged for a prompt nobody sent.
      expect(await modelOf(budgeted)).toEqual({ tokens_today: 0, max_tokens_per_day: 100_000 });
      const metrics = (await budgeted.request('GET', '/metrics')).text;
      expect(metrics).toMatch(/^muninn_model_calls_total\{call="digest",outcome="timeout"\} 1$/m);
      expect(metrics).not.toMatch(/^muninn_model_tokens_total\{call="digest"\} [1-9]/m);
    } finally {
      await budgeted.close();
    }
  });

  it('rewrite "auto" with no query planner configured → off (and true → failed)', async () => {
    const bare = await startTestApp();
    try {
      await seedMany(
        bare,
        {},
        { [NARWHAL]: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.' },
      );
      const auto = await context(bare, { query: 'narwhal tusk', rewrite: 'auto', ...STRICT });
      expect(auto.status).toBe(200);
      expect(urisOf(auto)).toContain(NARWHAL);
      expect(auto.body.result.stats.rewrite).toBe('off');
      const on = await context(bare, { query: 'narwhal tusk', rewrite: true, ...STRICT });
      expect(on.body.result.stats.rewrite).toBe('failed');
      expect(on.body.result.rendered).toContain(NARWHAL);
    } finally {
      await bare.close();
    }
  });

  // Last: stops this app's rewriter workers.
  it('rewriter stopped → rewrite:true answers "timeout" within the fuse plus a margin; requests without rewrite are unaffected', async () => {
    await Promise.all([app.nest.get(DigestProcessor).worker.close(), app.nest.get(ExpandProcessor).worker.close()]);
    const started = Date.now();
    const r = await ask({ query: 'narwhal tusk', rewrite: true });
    const took = Date.now() - started;
    expect(r.body.result.stats.rewrite).toBe('timeout');
    expect(r.body.result.rendered).toContain(NARWHAL);
    expect(took).toBeGreaterThanOrEqual(REWRITE_S * 1000 - 50);
    expect(took).toBeLessThan(REWRITE_S * 1000 + 1500);

    const t = Date.now();
    const plain = await ask({ query: 'narwhal tusk' });
    // Not held by the stopped rewriter's fuse (2 s); the margin is for a second suite on the same two cores.
    expect(Date.now() - t).toBeLessThan(REWRITE_S * 1000 - 100);
    expect(plain.body.result.stats.rewrite).toBe('off');
    expect(urisOf(plain)).toContain(NARWHAL);
    expect(fake.requests).toHaveLength(0);
    // The digest job nobody waits for any more was taken back at the deadline, not left for a worker to find.
    expect(await spy.queue(QueueName.Digest).getWaitingCount()).toBe(0);
  });
});

describe('query expansion under a short request deadline', () => {
  let fake: FakeLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    fake = await startFakeLlmServer();
    // The expansion's own fuse (10 s) is longer than the whole request's deadline (3 s).
    app = await startTestApp({
      env: {
        LLM_BASE_URL: fake.url,
        LLM_MODEL: 'chat-model',
        RECALL_INTENT_TIMEOUT_S: '10',
        MUNINN_REQUEST_DEADLINE_MS: '3000',
      },
    });
    await seedMany(app, {}, { [NARWHAL]: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.' });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('a planner slower than the deadline is cut at half of it: the raw query is searched and served', async () => {
    expect((await app.request('POST', '/api/v1/sessions', { body: { session_id: 'short' } })).status).toBe(200);
    const said = await app.request('POST', '/api/v1/sessions/short/messages', {
      body: { role: 'user', content: 'we talked about narwhals' },
    });
    expect(said.status).toBe(200);
    fake.respondWith(route({ expand: { text: '["too late"]', delayMs: 20_000 } }));
    const r = await context(app, { query: 'narwhal', session_id: 'short', query_expansion: 'auto', ...STRICT });
    expect(r.status).toBe(200);
    // Before, the expansion used the whole deadline and the searches after it had none: an empty block.
    expect(r.body.result.stats.query_expansion).toBe('failed');
    expect(urisOf(r)).toContain(NARWHAL);
  });
});
