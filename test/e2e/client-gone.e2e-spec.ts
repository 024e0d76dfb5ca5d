// docs/limits-and-security.md, "A client that goes away": a context request whose client disconnects stops
// at its next step. Over real HTTP (gateway → BullMQ → rewriter → a fake OpenAI-protocol server whose
// planner takes 1.5 s): the planner's call in flight is withdrawn (the rewriter aborts the provider's
// request), no digest is asked of the model for it, and its session's ledger does not record entries it
// never delivered.
import {
  droppableRequest,
  FakeLlmServer,
  isPlannerRequest,
  metricValue,
  startFakeLlmServer,
  startTestApp,
  TestApp,
} from '@app/testing';
import { seedMany } from './context-support';

const NARWHAL = 'viking://user/default/memories/entities/narwhal.md';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** POSTs `payload` on a connection of its own and drops it after `ms`; how it ended. */
async function dropAfter(url: string, payload: unknown, ms: number, onSent: () => void): Promise<string> {
  const sent = droppableRequest(url, payload);
  await sleep(ms);
  onSent();
  sent.drop();
  return sent.ended;
}

describe('a context request whose client goes away', () => {
  let fake: FakeLlmServer;
  let app: TestApp;
  const body = (session: string) => ({
    query: 'narwhal',
    mode: 'context',
    session_id: session,
    query_expansion: 'auto',
    rewrite: true,
    dedup_turns: 3,
  });
  const planner = () => fake.requests.filter(isPlannerRequest).length;
  /** How long after its arrival the provider saw planner call `i` closed unanswered (undefined: answered). */
  const abandonedAfter = (i: number) => fake.requests.filter(isPlannerRequest)[i]?.abandonedAfterMs;
  const digests = () => fake.requests.filter((r) => !isPlannerRequest(r)).length;
  /** The expansion calls the gateway counted under `outcome`. */
  const expandCalls = async (outcome: string) =>
    (await metricValue(app.request, `muninn_model_calls_total{call="expand",outcome="${outcome}"}`)) ?? 0;
  const served = async (session: string) => {
    const r = await app.request('POST', '/api/v1/search/search', { body: body(session) });
    expect(r.status).toBe(200);
    return (r.body.result.entries as { uri: string }[]).map((e) => e.uri);
  };

  beforeAll(async () => {
    fake = await startFakeLlmServer({
      fallback: (req) =>
        isPlannerRequest(req)
          ? { text: '{"queries": ["narwhal tusk"]}', delayMs: 1500 }
          : `- a whale with a tusk [${NARWHAL}]`,
    });
    app = await startTestApp({ env: { LLM_BASE_URL: fake.url, LLM_MODEL: 'chat-model' } });
    await seedMany(app, {}, { [NARWHAL]: 'The narwhal is a toothed whale of the Arctic with one long spiral tusk.' });
    for (const session of ['control', 'talk', 'tool']) {
      expect((await app.request('POST', '/api/v1/sessions', { body: { session_id: session } })).status).toBe(200);
      const msg = { role: 'user', content: 'we talked about narwhals' };
      expect((await app.request('POST', `/api/v1/sessions/${session}/messages`, { body: msg })).status).toBe(200);
    }
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('asks no digest and records no ledger turn for it; a request that stays gets both', async () => {
    // A client that stays: expansion, then the digest; the next turn finds the memory in the ledger.
    expect(await served('control')).toContain(NARWHAL);
    expect([planner(), digests()]).toEqual([1, 1]);
    expect(await served('control')).not.toContain(NARWHAL);
    expect([planner(), digests()]).toEqual([2, 1]);
    expect([abandonedAfter(0), abandonedAfter(1)]).toEqual([undefined, undefined]);

    // A client that goes away while the planner thinks.
    const ended = await dropAfter(`${app.url}/api/v1/search/search`, body('talk'), 400, () =>
      expect(planner()).toBe(3),
    );
    expect(ended).not.toBe('answered');
    // Past the planner's answer and what would have followed it: no digest was asked for.
    await sleep(2500);
    expect([planner(), digests()]).toEqual([3, 1]);
    // The planner's call was withdrawn: the provider's request closed unanswered, long before its 1.5 s;
    // counted as gone, not as the provider's timeout.
    expect(abandonedAfter(2)).toBeLessThan(1000);
    expect([await expandCalls('gone'), await expandCalls('timeout'), await expandCalls('ok')]).toEqual([1, 0, 2]);
    // The session was given nothing: its next turn is served the memory.
    expect(await served('talk')).toContain(NARWHAL);
  });

  it("an MCP search in context mode stops the same way; the session's next turn is served the memory", async () => {
    const [plannerBefore, digestsBefore] = [planner(), digests()];
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'search',
        arguments: {
          query: 'narwhal',
          mode: 'context',
          session_id: 'tool',
          query_expansion: 'auto',
          rewrite: 'auto',
          dedup_turns: 3,
        },
      },
    };
    // (An SSE answer may have sent its headers already: what matters is what the tool went on to do.)
    await dropAfter(`${app.url}/mcp`, call, 400, () => expect(planner()).toBe(plannerBefore + 1));
    await sleep(2500);
    expect([planner(), digests()]).toEqual([plannerBefore + 1, digestsBefore]);
    expect(abandonedAfter(plannerBefore)).toBeLessThan(1000);
    expect([await expandCalls('gone'), await expandCalls('timeout')]).toEqual([2, 0]);
    expect(await served('tool')).toContain(NARWHAL);
  });
});
