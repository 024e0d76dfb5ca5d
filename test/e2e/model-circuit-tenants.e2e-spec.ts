// docs/limits-and-security.md, "A model that stops answering": one tenant whose digests fail does not open
// the digest circuit for the others, and is held by its own; the failures of several tenants do open it. Over real HTTP (gateway → BullMQ →
// rewriter → a fake OpenAI-protocol server that fails every digest of alpha's block, and beta's on demand).
import {
  FakeLlmServer,
  isPlannerRequest,
  mentions,
  metricValue,
  startFakeLlmServer,
  startTestApp,
  TestApp,
} from '@app/testing';

const ROOT = 'root-key-circuit-tenants-0123456789';

describe('the digest circuit and one tenant whose digests fail', () => {
  let fake: FakeLlmServer;
  let app: TestApp;
  let betaFails = false;
  const keys: Record<string, string> = {};

  const digestCalls = () => fake.requests.filter((r) => !isPlannerRequest(r)).length;
  const ask = async (account: 'alpha' | 'beta', query: string) => {
    const r = await app.request('POST', '/api/v1/search/search', {
      key: keys[account],
      body: { query, mode: 'context', rewrite: true, dedup_turns: 0 },
    });
    expect(r.status).toBe(200);
    return r.body.result.stats.rewrite as string;
  };
  const metric = async (series: string) =>
    (await metricValue((method, path) => app.request(method, path, { key: ROOT }), series)) ?? NaN;
  const circuitOpen = () => metric('muninn_model_circuit_open{call="digest"}');

  beforeAll(async () => {
    fake = await startFakeLlmServer({
      fallback: (req) =>
        mentions(req, 'narwhal') || (betaFails && mentions(req, 'lighthouse')) ? { status: 500 } : 'NO_RELEVANT_MEMORY',
    });
    app = await startTestApp({
      rootApiKey: ROOT,
      env: {
        LLM_BASE_URL: fake.url,
        LLM_MODEL: 'chat-model',
        MUNINN_MODEL_BREAKER_FAILURES: '2',
        MUNINN_MODEL_BREAKER_COOLDOWN_S: '60',
      },
    });
    const memories = {
      alpha: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.',
      beta: 'The lighthouse keeper retires in May; the lamp is to be automated.',
    };
    for (const [account, content] of Object.entries(memories)) {
      const r = await app.request('POST', '/api/v1/admin/accounts', {
        key: ROOT,
        body: { account_id: account, admin_user_id: 'boss' },
      });
      expect(r.status).toBe(200);
      keys[account] = r.body.result.user_key as string;
      const w = await app.request('POST', '/api/v1/content/write', {
        key: keys[account],
        body: { uri: 'viking://resources/note.md', content, mode: 'create', wait: true },
      });
      expect(w.status).toBe(200);
    }
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it("alpha's failing digests, even four at once, leave the circuit closed and beta's digest made; alpha's own are held; beta's failing too opens it", async () => {
    expect(await ask('beta', 'lighthouse keeper')).not.toBe('failed');
    expect(digestCalls()).toBe(1);
    // alpha's burst: four digests at once, each failed by the model (twice the circuit's threshold). alpha's
    // second failure holds alpha (its own circuit): the calls still in flight then are let go.
    const burst = await Promise.all([1, 2, 3, 4].map(() => ask('alpha', 'narwhal tusk')));
    expect(burst).toEqual(['failed', 'failed', 'failed', 'failed']);
    const afterBurst = digestCalls();
    expect(afterBurst).toBeGreaterThanOrEqual(3);
    expect(afterBurst).toBeLessThanOrEqual(5);
    expect(await circuitOpen()).toBe(0);
    // beta's digest is still asked for; alpha's is not, for the cool-down: its request degrades at once
    // instead of waiting for another failure.
    expect(await ask('beta', 'lighthouse keeper')).not.toBe('failed');
    expect(await ask('alpha', 'narwhal tusk')).toBe('failed');
    expect(digestCalls()).toBe(afterBurst + 1);
    expect(await metric('muninn_model_calls_total{call="digest",outcome="held"}')).toBe(1);
    expect(await metric('muninn_model_accounts_held{call="digest"}')).toBe(1);

    // The model fails beta's digest as well: with alpha held, beta's two failures in a row are an outage
    // (every account that called lately is failing); the circuit opens.
    betaFails = true;
    expect(await ask('beta', 'lighthouse keeper')).toBe('failed');
    expect(await ask('beta', 'lighthouse keeper')).toBe('failed');
    expect(digestCalls()).toBe(afterBurst + 3);
    expect(await circuitOpen()).toBe(1);
    expect(await ask('beta', 'lighthouse keeper')).toBe('failed');
    expect(await ask('alpha', 'narwhal tusk')).toBe('failed');
    expect(digestCalls()).toBe(afterBurst + 3);
  });
});
