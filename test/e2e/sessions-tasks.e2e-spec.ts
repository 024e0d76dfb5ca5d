import { Queue } from 'bullmq';
import { redisOptions } from '@app/queue';
import { FakeLlmServer, startFakeLlmServer, startTestApp, TestApp } from '@app/testing';
import { eventually, isExtraction, workingMemory } from './sessions-support';

const ROOT = 'sessions-tasks-root-key-0123';

/**
 * The tasks API of a commit (docs/sessions.md "Tasks"): a commit held at its model call (a gate the
 * test opens) shows `running`; cancellation of running and pending tasks; records expire. API-key
 * mode, since a ROOT caller (dev mode) may not cancel.
 */
describe('sessions: tasks — running, cancellation, expiry', () => {
  let app: TestApp;
  let llm: FakeLlmServer;
  let key: string;
  let extractQueue: Queue;
  /** Extraction calls wait for this gate; `open()` lets the held ones answer. */
  let open: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  const hold = () => {
    gate = new Promise((r) => (open = r));
  };
  let answer = (title: string) =>
    JSON.stringify({
      entities: [{ category: 'person', name: title, content: `${title} joined the project.` }],
      overview: workingMemory(title),
    });
  let title = 'first';

  const call = (method: string, path: string, body?: unknown) =>
    app.request(method, path, { key, ...(body === undefined ? {} : { body }) });
  const task = async (id: string) => (await call('GET', `/api/v1/tasks/${id}`)).body.result;
  const taskIn = (id: string, states: string[]) =>
    eventually(async () => {
      const t = await task(id);
      return states.includes(t?.status) ? t : null;
    });
  const commit = async (sid: string, content: string) => {
    await call('POST', `/api/v1/sessions/${sid}/messages`, { role: 'user', content });
    const c = (await call('POST', `/api/v1/sessions/${sid}/commit`, {})).body.result;
    expect(c.status).toBe('accepted');
    return c.task_id as string;
  };

  beforeAll(async () => {
    llm = await startFakeLlmServer({
      fallback: async (req) => {
        if (!isExtraction(req)) return '{"queries": []}';
        const t = title;
        await gate;
        return answer(t);
      },
    });
    app = await startTestApp({
      rootApiKey: ROOT,
      env: {
        LLM_BASE_URL: llm.url,
        LLM_MODEL: 'fake',
        MUNINN_EXTRACT_TIMEOUT_S: '60',
        MUNINN_OUTBOX_GRACE_MS: '300',
        MUNINN_OUTBOX_POLL_MS: '100',
        MUNINN_TASK_TTL_S: '6',
      },
    });
    const admin = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'tasks', admin_user_id: 'boss' },
    });
    const user = await app.request('POST', '/api/v1/admin/accounts/tasks/users', {
      key: admin.body.result.user_key,
      body: { user_id: 'ann', role: 'user' },
    });
    key = user.body.result.user_key;
    extractQueue = new Queue('extract', {
      connection: redisOptions(process.env.REDIS_URL ?? ''),
      prefix: app.config.queues.prefix,
    });
  }, 60_000);
  afterAll(async () => {
    open();
    await extractQueue?.close();
    await app?.close();
    await llm?.close();
  });

  it('case 53: a gated commit is running until its model answers, then completed with memories_extracted', async () => {
    hold();
    title = 'Wilhelmina';
    const id = await commit('gated', 'Wilhelmina joined the project today.');
    const running = await taskIn(id, ['running']);
    expect(running).toMatchObject({ task_type: 'session_commit', resource_id: 'gated', stage: null, result: null });
    open();
    const done = await taskIn(id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(done.stage).toBe('completed');
    expect(done.result.memories_extracted).toEqual({ memory_write: 1 });
    expect(done.result.memory_uris).toEqual(['viking://user/ann/memories/entities/person/wilhelmina.md']);
  });

  it("case 41: the second commit's summary and extraction receive the first archive's overview", async () => {
    title = 'Alpha planning';
    const first = await commit('chain', 'We start the Alpha plan.');
    expect((await taskIn(first, ['completed', 'failed'])).status).toBe('completed');
    llm.requests.length = 0;
    title = 'Beta planning';
    const second = await commit('chain', 'Then the Beta plan.');
    expect((await taskIn(second, ['completed', 'failed'])).status).toBe('completed');
    // One model call writes both the summary and the memories: its prompt carries the first overview.
    const calls = llm.requests.filter(isExtraction);
    expect(calls).toHaveLength(1);
    const prompt = calls[0].messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('Previous working memory:');
    expect(prompt).toContain('Alpha planning');
    expect(prompt).toContain('Then the Beta plan.');
    const ctx = (await call('GET', '/api/v1/sessions/chain/context')).body.result;
    expect(ctx.latest_archive_overview).toContain('Beta planning');
  });

  it('a commit cancelled while its windows are sent to the model makes no further call', async () => {
    hold();
    title = 'Windowed';
    const before = llm.requests.filter(isExtraction).length;
    // Three messages of ~35,000 characters: one 60,000-character prompt window each, so three calls.
    const long = (i: number) =>
      `Part ${i} of the long log. ${'The night shift logged the reactor readings. '.repeat(780)}`;
    for (let i = 1; i <= 3; i++)
      await call('POST', '/api/v1/sessions/cancel-windows/messages', { role: 'user', content: long(i) });
    const c = (await call('POST', '/api/v1/sessions/cancel-windows/commit', {})).body.result;
    await taskIn(c.task_id, ['running']);
    await eventually(async () => llm.requests.filter(isExtraction).length > before);
    expect((await call('POST', `/api/v1/tasks/${c.task_id}/cancel`)).body.result.status).toBe('cancelling');
    open();
    const t = await taskIn(c.task_id, ['cancelled', 'completed', 'failed']);
    expect(t).toMatchObject({ status: 'cancelled', result: null });
    const calls = llm.requests.filter(isExtraction).slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0].messages[1].content).toContain('Part 1 of the long log.');
    expect(calls[0].messages[1].content).not.toContain('Part 2 of the long log.');
  });

  it('cancel a running commit: cancelling, then cancelled; nothing extracted; the archive ends failed; repeats are no-ops', async () => {
    hold();
    title = 'Cornelius';
    const id = await commit('cancel-run', 'Cornelius joined the project today.');
    await taskIn(id, ['running']);
    const c = await call('POST', `/api/v1/tasks/${id}/cancel`);
    expect(c.status).toBe(200);
    expect(c.body.result).toMatchObject({ task_id: id, status: 'cancelling', stage: null });
    expect((await call('POST', `/api/v1/tasks/${id}/cancel`)).body.result.status).toMatch(/^cancell(ing|ed)$/);
    open();
    const t = await taskIn(id, ['cancelled', 'completed', 'failed']);
    expect(t).toMatchObject({ status: 'cancelled', stage: 'cancelled', error: 'cancelled', result: null });
    const again = await call('POST', `/api/v1/tasks/${id}/cancel`);
    expect([again.status, again.body.result.status]).toEqual([200, 'cancelled']);
    expect((await call('GET', '/api/v1/tasks?status=cancelled')).body.result.map((r: any) => r.task_id)).toContain(id);
    const file = await call(
      'GET',
      `/api/v1/content/read?uri=${encodeURIComponent('viking://user/ann/memories/entities/person/cornelius.md')}`,
    );
    expect(file.status).toBe(404);
    expect((await call('GET', '/api/v1/sessions/cancel-run/archives/archive_001')).status).toBe(404);
    // The archive's files say so: `.failed.json` with stage `cancelled`, no `.done`.
    const archiveDir = 'viking://user/ann/sessions/cancel-run/history/archive_001';
    const failed = await call('GET', `/api/v1/content/read?uri=${encodeURIComponent(`${archiveDir}/.failed.json`)}`);
    expect(JSON.parse(failed.body.result)).toMatchObject({ stage: 'cancelled', error: 'cancelled', skipped: true });
    expect((await call('GET', `/api/v1/content/read?uri=${encodeURIComponent(`${archiveDir}/.done`)}`)).status).toBe(
      404,
    );
    const ctx = (await call('GET', '/api/v1/sessions/cancel-run/context')).body.result;
    expect(ctx.stats).toMatchObject({ totalArchives: 1, failedArchives: 1 });
    expect(ctx.messages).toEqual([]);
    // A cancelled archive never blocks the next commit.
    title = 'Next';
    const next = await commit('cancel-run', 'Another message.');
    expect((await taskIn(next, ['completed', 'failed'])).status).toBe('completed');
  });

  it('cancel a pending commit (its queue paused): cancelled at once; the job later finds it cancelled and does nothing', async () => {
    await extractQueue.pause();
    let id: string;
    try {
      title = 'Philippa';
      id = await commit('cancel-pending', 'Philippa joined the project today.');
      expect((await task(id)).status).toBe('pending');
      const c = await call('POST', `/api/v1/tasks/${id}/cancel`);
      expect([c.status, c.body.result.status, c.body.result.stage]).toEqual([200, 'cancelled', 'cancelled']);
    } finally {
      await extractQueue.resume();
    }
    // Extract jobs wait as `prioritized` (the fair order); neither list may still hold one.
    await eventually(async () => {
      const c = await extractQueue.getJobCounts('waiting', 'prioritized');
      return c.waiting + c.prioritized === 0;
    });
    await eventually(async () => (await extractQueue.getJobCounts('active')).active === 0);
    expect((await task(id)).status).toBe('cancelled');
    const file = await call(
      'GET',
      `/api/v1/content/read?uri=${encodeURIComponent('viking://user/ann/memories/entities/person/philippa.md')}`,
    );
    expect(file.status).toBe(404);
  });

  it('cancel refusals: a completed task is 412, an unknown one 404, a ROOT caller 403', async () => {
    title = 'Done';
    const id = await commit('cancel-done', 'Nothing special.');
    expect((await taskIn(id, ['completed', 'failed'])).status).toBe('completed');
    const done = await call('POST', `/api/v1/tasks/${id}/cancel`);
    expect([done.status, done.body.error.code]).toEqual([412, 'FAILED_PRECONDITION']);
    const unknown = await call('POST', '/api/v1/tasks/no-such-task/cancel');
    expect([unknown.status, unknown.body.error.message]).toEqual([404, 'Task not found or expired']);
    // The root key may not reach tenant routes at all in api_key mode; dev mode (ROOT) is covered in sessions-cases.
    expect((await app.request('POST', `/api/v1/tasks/${id}/cancel`, { key: ROOT })).status).toBe(403);
  });

  it('completed task records expire after MUNINN_TASK_TTL_S: then 404 and gone from the list', async () => {
    answer = () => '{}';
    const id = await commit('expiring', 'Short lived.');
    expect((await taskIn(id, ['completed', 'failed'])).status).toBe('completed');
    await eventually(async () => (await call('GET', `/api/v1/tasks/${id}`)).status === 404, 30_000);
    const gone = await call('GET', `/api/v1/tasks/${id}`);
    expect(gone.body.error).toMatchObject({ code: 'NOT_FOUND', details: { resource: id, type: 'task' } });
    expect((await call('GET', '/api/v1/tasks?resource_id=expiring')).body.result).toEqual([]);
  });
});
