// docs/limits-and-security.md, "A model that stops answering": an account held on one gateway (its own
// digests failed) is held on the deployment's other gateways too. Two gateways of one deployment (a
// standalone process, which also runs the workers, and a second gateway process) on one PostgreSQL store
// and one queue prefix; a fake OpenAI-protocol server that fails alpha's digests until told otherwise.
import {
  buildDist,
  createTestDatabase,
  eventually,
  FakeLlmServer,
  isPlannerRequest,
  mentions,
  metricValue,
  ServingProcess,
  startFakeLlmServer,
  startServing,
  TestDatabase,
  TestRequest,
} from '@app/testing';

const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;
const ROOT = 'root-key-holds-shared-0123456789';
const COOLDOWN_S = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

suite("an account's hold shared by two gateways (real processes)", () => {
  let db: TestDatabase;
  let fake: FakeLlmServer;
  let first: TestRequest;
  let second: TestRequest;
  const procs: ServingProcess[] = [];
  const keys: Record<string, string> = {};
  let alphaFails = true;

  const digests = (word: string) => fake.requests.filter((r) => !isPlannerRequest(r) && mentions(r, word)).length;
  const ask = async (gateway: TestRequest, account: 'alpha' | 'beta') => {
    const query = account === 'alpha' ? 'narwhal tusk' : 'lighthouse keeper';
    const r = await gateway('POST', '/api/v1/search/search', {
      key: keys[account],
      body: { query, mode: 'context', rewrite: true, dedup_turns: 0 },
    });
    expect(r.status).toBe(200);
    return r.body.result.stats.rewrite as string;
  };
  const metric = async (gateway: TestRequest, series: string) =>
    (await metricValue((method, path) => gateway(method, path, { key: ROOT }), series)) ?? NaN;

  beforeAll(async () => {
    buildDist();
    db = await createTestDatabase(PG as string);
    fake = await startFakeLlmServer({
      fallback: (req) => (alphaFails && mentions(req, 'narwhal') ? { status: 500 } : 'NO_RELEVANT_MEMORY'),
    });
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL as string,
      MUNINN_QUEUE_PREFIX: `holds-shared-${process.pid}-${Date.now()}`,
      MUNINN_ROOT_API_KEY: ROOT,
      LLM_BASE_URL: fake.url,
      LLM_MODEL: 'chat-model',
      MUNINN_MODEL_BREAKER_FAILURES: '2',
      MUNINN_MODEL_BREAKER_COOLDOWN_S: String(COOLDOWN_S),
    };
    for (const app of ['standalone', 'gateway'] as const) procs.push(await startServing(app, env));
    [first, second] = procs.map((p) => p.request);
    const memories = {
      alpha: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.',
      beta: 'The lighthouse keeper retires in May; the lamp is to be automated.',
    };
    for (const [account, content] of Object.entries(memories)) {
      const r = await first('POST', '/api/v1/admin/accounts', {
        key: ROOT,
        body: { account_id: account, admin_user_id: 'boss' },
      });
      expect(r.status).toBe(200);
      keys[account] = r.body.result.user_key as string;
      const w = await first('POST', '/api/v1/content/write', {
        key: keys[account],
        body: { uri: 'viking://resources/note.md', content, mode: 'create', wait: true },
      });
      expect(w.status).toBe(200);
    }
  }, 240_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.proc.kill('SIGKILL')));
    await fake?.close();
    await db?.drop();
  });

  it("alpha, held on the first gateway, is held on the second until the first's call finds its digests answered", async () => {
    // beta's answered digest on the first gateway: one tenant failing there is not an outage.
    expect(await ask(first, 'beta')).not.toBe('failed');
    // alpha's two failed digests hold alpha on the first gateway.
    expect([await ask(first, 'alpha'), await ask(first, 'alpha')]).toEqual(['failed', 'failed']);
    expect(digests('narwhal')).toBe(2);
    const heldAt = Date.now();
    expect(await metric(first, 'muninn_model_accounts_held{call="digest"}')).toBe(1);
    // The second gateway never saw alpha's digests fail, yet asks for none of them; beta's it asks for.
    const heldOnSecond = () => metric(second, 'muninn_model_accounts_held{call="digest"}');
    await eventually(async () => (await heldOnSecond()) === 1, { ms: 5000, pollMs: 100 });
    expect(await ask(second, 'alpha')).toBe('failed');
    expect(digests('narwhal')).toBe(2);
    expect(await metric(second, 'muninn_model_calls_total{call="digest",outcome="held"}')).toBe(1);
    expect(await ask(second, 'beta')).not.toBe('failed');
    expect(await metric(second, 'muninn_model_circuit_open{call="digest"}')).toBe(0);

    // Past the cool-down the second gateway still waits for the first's word: one call finds out, not two.
    alphaFails = false;
    await sleep(Math.max(0, heldAt + COOLDOWN_S * 1000 + 300 - Date.now()));
    expect(await ask(second, 'alpha')).toBe('failed');
    expect(digests('narwhal')).toBe(2);
    // The first gateway's call finds alpha's digests answered; the second's hold ends with it.
    expect(await ask(first, 'alpha')).not.toBe('failed');
    expect(digests('narwhal')).toBe(3);
    await eventually(async () => (await heldOnSecond()) === 0, { ms: 5000, pollMs: 100 });
    expect(await ask(second, 'alpha')).not.toBe('failed');
    expect(digests('narwhal')).toBe(4);
  });
});
