import { FakeLlmReply } from '@app/testing';
import { isExtraction, modelTestApp, workingMemory } from './sessions-support';

/**
 * A provider that fails for a while (docs/sessions.md): a commit's extraction is tried again after a
 * transient failure (503, 429 with its Retry-After) and resumes after the calls already answered; a
 * permanent refusal falls back at once; the last attempt keeps the answered calls and extracts the rest
 * offline. Real BullMQ retries, a real OpenAI-protocol server.
 */
describe('sessions: a provider that fails for a while', () => {
  /** Every extraction call: its session and the first turn of its window, in arrival order. */
  const calls: { sid: string; first: number; at: number; prompt: string }[] = [];
  const tries = new Map<string, number>();
  const answer = (first: number): FakeLlmReply => ({
    text: JSON.stringify({
      events: [{ event_name: `window ${first}`, summary: `What turns ${first} and on were about.`, from: 0, to: 1 }],
      overview: workingMemory(`From turn ${first}`),
    }),
    usage: { prompt_tokens: 100, completion_tokens: 10 },
  });
  const script = (sid: string, first: number, n: number): FakeLlmReply => {
    if (sid === 'flaky' && first === 3 && n === 1) return { status: 503 };
    if (sid === 'limited' && n === 1) return { status: 429, headers: { 'retry-after': '2' } };
    if (sid === 'refused') return { status: 400 };
    if (sid === 'down' && first >= 3) return { status: 503 };
    return answer(first);
  };
  const { get, commitAndWait } = modelTestApp(
    (req) => {
      if (!isExtraction(req)) return '{"queries": []}';
      const [, sid, first] = /(\w+)-marker-(\d+):/.exec(req.messages[1].content) ?? [];
      const key = `${sid}:${first}`;
      const n = (tries.get(key) ?? 0) + 1;
      tries.set(key, n);
      calls.push({ sid, first: Number(first), at: Date.now(), prompt: req.messages[1].content });
      return script(sid, Number(first), n);
    },
    { MUNINN_EXTRACT_PROMPT_CHARS: '1000', MUNINN_EXTRACT_MAX_CALLS: '3', MUNINN_EXTRACT_RETRY_S: '0.1' },
  );
  // Turns of ~440 characters: two fill a 1,000-character window.
  const turns = (sid: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `Turn ${i + 1} ${sid}-marker-${i + 1}: ${'the ferryman checked the mooring lines again. '.repeat(9)}`,
      created_at: '2026-05-04T10:00:00Z',
    }));
  const callsOf = (sid: string) => calls.filter((c) => c.sid === sid);
  const event = (sid: string, first: number, n: number) =>
    `viking://user/default/memories/events/2026/05/04/window_${first}-${sid}_archive_001_${n}.md`;
  const offlinePart = (sid: string) => `viking://user/default/memories/events/2026/05/04/${sid}_archive_001_p1.md`;

  it('a 503 on the second of three calls: the job runs again from that call, and every call is the model’s', async () => {
    const t = await commitAndWait('flaky', turns('flaky', 6));
    expect(t.status).toBe('completed');
    expect(callsOf('flaky').map((c) => c.first)).toEqual([1, 3, 3, 5]);
    // The call asked again builds on the kept answer of the first, as it did the first time.
    const [, failed, retried] = callsOf('flaky');
    const untimed = (prompt: string) => prompt.replace(/^Session time: .*$/m, '');
    expect(untimed(retried.prompt)).toBe(untimed(failed.prompt));
    expect(retried.prompt).toContain('From turn 1');
    expect(t.result.extractor).toBe('model');
    expect(t.result.extractor_fallback_reason).toBeUndefined();
    // The answered calls, each counted once (the first call's answer was kept, not asked again).
    expect(t.result.commit_token_usage.llm).toMatchObject({ prompt_tokens: 300, completion_tokens: 30 });
    expect(t.result.memory_uris).toEqual(
      expect.arrayContaining([event('flaky', 1, 1), event('flaky', 3, 51), event('flaky', 5, 101)]),
    );
    expect(t.result.memory_uris).not.toContain(offlinePart('flaky'));
    expect((await get('/api/v1/sessions/flaky/archives/archive_001')).body.result.abstract).toBe('From turn 5');
  });

  it("a 429's Retry-After is waited for, the task running meanwhile", async () => {
    const pending = commitAndWait('limited', turns('limited', 2));
    const first = await eventuallyCall('limited');
    const tasks = (await get('/api/v1/tasks?resource_id=limited')).body.result as { status: string }[];
    expect(tasks.map((x) => x.status)).toEqual(['running']);
    const t = await pending;
    expect(t.result.extractor).toBe('model');
    const [a, b] = callsOf('limited');
    expect(b.at - a.at).toBeGreaterThanOrEqual(1900);
    expect(first.first).toBe(1);
    expect(t.result.memory_uris).toContain(event('limited', 1, 1));
  });

  it('a 400 is not tried again: the offline extractor at once, saying why', async () => {
    const t = await commitAndWait('refused', turns('refused', 2));
    expect(callsOf('refused')).toHaveLength(1);
    expect(t.status).toBe('completed');
    expect(t.result.extractor).toBe('offline');
    expect(t.result.extractor_fallback_reason).toMatch(/HTTP 400/);
    expect(t.result.memory_uris.length).toBeGreaterThan(0);
  });

  it("a provider down for good: the last attempt keeps the answered call's memories and extracts the rest offline", async () => {
    const t = await commitAndWait('down', turns('down', 4));
    // The first window answered once; the second asked on each of the six attempts.
    expect(callsOf('down').map((c) => c.first)).toEqual([1, 3, 3, 3, 3, 3, 3]);
    expect(t.status).toBe('completed');
    expect(t.result.extractor).toBe('model');
    expect(t.result.extractor_fallback_reason).toMatch(
      /HTTP 503.*\(call 2 of 2\), attempt 6 after call 1; the rest extracted offline$/,
    );
    expect(t.result.memory_uris).toEqual(expect.arrayContaining([event('down', 1, 1), offlinePart('down')]));
    const rest = await get(`/api/v1/content/read?uri=${encodeURIComponent(offlinePart('down'))}`);
    expect(rest.body.result).toContain('down-marker-3:');
    expect(rest.body.result).not.toContain('down-marker-2:');
  });

  async function eventuallyCall(sid: string) {
    for (let i = 0; i < 200 && callsOf(sid).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(callsOf(sid).length).toBeGreaterThan(0);
    return callsOf(sid)[0];
  }
});
