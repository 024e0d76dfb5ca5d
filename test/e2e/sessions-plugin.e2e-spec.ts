import { startTestApp, TestApp } from '@app/testing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Replays, request by request, what an agent memory plugin does (the Claude Code plugin's hooks as
 * docs/sessions.md "What the plugins send" describes them): capture turns with tool parts and the
 * workspace peer, check pending_tokens, commit with a keep window, poll the task, commit the rest at
 * session end; then at the next session start, read the profile memories, the archived context, and
 * search in context mode — with no model configured.
 */
describe('sessions: a plugin session sequence, unchanged', () => {
  let app: TestApp;
  const headers = { authorization: 'Bearer unused-in-dev-mode' };
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { body, headers });
  const SID = 'cc-7f3e1c2a-9b8d-4e6f-a1b2-c3d4e5f60718';
  const PEER = '-Users-x-Dev-Proj';
  const COMMIT_THRESHOLD = 60; // the plugin's client-side commitTokenThreshold, lowered for the test

  const transcript = [
    {
      role: 'user',
      parts: [{ type: 'text', text: 'Please add retry logic to the Quillfeather uploader in src/upload.ts.' }],
    },
    {
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Reading the uploader first.' },
        {
          type: 'tool',
          tool_id: 't1',
          tool_name: 'Read',
          tool_input: { path: 'src/upload.ts' },
          tool_status: 'running',
        },
      ],
    },
    {
      role: 'user',
      parts: [
        {
          type: 'tool',
          tool_id: 't1',
          tool_name: 'Read',
          tool_output: 'export async function upload() {}',
          tool_status: 'completed',
        },
      ],
    },
    {
      role: 'assistant',
      parts: [{ type: 'text', text: 'Added exponential backoff with three attempts to the Quillfeather uploader.' }],
    },
    { role: 'user', parts: [{ type: 'text', text: 'Great. I prefer small commits, so commit that alone.' }] },
    { role: 'assistant', parts: [{ type: 'text', text: 'Committed the retry change on its own.' }] },
  ];

  beforeAll(async () => {
    app = await startTestApp({
      env: { MUNINN_OUTBOX_GRACE_MS: '300', MUNINN_OUTBOX_POLL_MS: '100', MUNINN_SIDECAR_INTERVAL_MS: '200' },
    });
  }, 60_000);
  afterAll(() => app?.close());

  async function pollTask(taskId: string) {
    for (let i = 0; i < 300; i++) {
      const t = await call('GET', `/api/v1/tasks/${taskId}`);
      expect(t.status).toBe(200);
      if (t.body.result.status === 'completed' || t.body.result.status === 'failed') return t.body.result;
      await sleep(500);
    }
    throw new Error('task did not finish');
  }

  it('capture → threshold commit → task poll → session end → next session: profile, context, search', async () => {
    // Stop hook: health probe, batch send (chunks of 100), then the meta check.
    expect((await call('GET', '/health')).status).toBe(200);
    const batch = await call('POST', `/api/v1/sessions/${SID}/messages/batch`, {
      messages: transcript.map((m) => ({ ...m, peer_id: PEER })),
    });
    expect(batch.status).toBe(200);
    expect(batch.body.result.added).toBe(6);
    const meta = (await call('GET', `/api/v1/sessions/${SID}`)).body.result;
    expect(meta.pending_tokens).toBeGreaterThanOrEqual(COMMIT_THRESHOLD);
    const commit = await call('POST', `/api/v1/sessions/${SID}/commit`, { keep_recent_count: 2 });
    expect(commit.body.result).toMatchObject({ status: 'accepted', archived: true });
    expect(commit.body.result).toHaveProperty('trace_id');
    expect((await call('GET', `/api/v1/sessions/${SID}`)).body.result.commit_count).toBe(1);
    const t1 = await pollTask(commit.body.result.task_id);
    expect(t1.status).toBe('completed');

    // SessionEnd: commit everything that is left.
    const end = await call('POST', `/api/v1/sessions/${SID}/commit`, {});
    expect(end.body.result.archive_uri).toMatch(/\/history\/archive_002$/);
    await pollTask(end.body.result.task_id);

    // Next SessionStart (source=resume): profile injection over the fs/content routes … Every message
    // carries the workspace peer, so (peer memory on by default) the memories are in that peer's space.
    const peerSpace = `viking://user/default/peers/${PEER}/memories`;
    const ls = await call(
      'GET',
      `/api/v1/fs/ls?uri=${encodeURIComponent(`${peerSpace}/entities`)}&recursive=true&simple=true`,
    );
    expect(ls.status).toBe(200);
    expect(JSON.stringify(ls.body.result)).toContain('quillfeather');
    const own = await call('GET', `/api/v1/fs/ls?uri=${encodeURIComponent('viking://user/default/memories/entities')}`);
    expect(own.status).toBe(404);
    const pref = await call(
      'GET',
      `/api/v1/content/read?uri=${encodeURIComponent(`${peerSpace}/preferences/users_x_dev_proj/small.md`)}`,
    );
    expect(pref.status).toBe(200);
    expect(pref.body.result).toContain('I prefer small commits');
    // … the archived context in a <session-archive> block …
    const ctx = (await call('GET', `/api/v1/sessions/${SID}/context?token_budget=32000`)).body.result;
    expect(ctx.latest_archive_overview).toContain('# Working Memory');
    expect(ctx.pre_archive_abstracts).toEqual([]);
    expect(ctx.stats.totalArchives).toBe(2);
    // … and the archived messages (tool parts included) round-trip through the archive route.
    const archive = (await call('GET', `/api/v1/sessions/${SID}/archives/archive_001`)).body.result;
    expect(archive.messages[1].parts[1]).toEqual({
      type: 'tool',
      tool_id: 't1',
      tool_name: 'Read',
      tool_input: { path: 'src/upload.ts' },
      tool_status: 'running',
    });
    expect(archive.messages[1].peer_id).toBe(PEER);

    // A later turn asks; context search serves the extracted memory.
    let served = '';
    for (let i = 0; i < 120 && !served.includes('Quillfeather'); i++) {
      const r = await call('POST', '/api/v1/search/search', {
        query: 'What did we change in the Quillfeather uploader?',
        mode: 'context',
        max_tokens: 1600,
      });
      expect(r.status).toBe(200);
      served = JSON.stringify(r.body.result);
      if (!served.includes('Quillfeather')) await sleep(250);
    }
    expect(served).toContain('exponential backoff');
  });

  it('a resumed session that was never captured: /context is 404 with "Session not found"', async () => {
    const r = await call('GET', '/api/v1/sessions/cc-never/context?token_budget=32000');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NOT_FOUND');
    expect(r.body.error.message).toContain('Session not found');
    expect((await call('POST', '/api/v1/sessions/cc-never/commit', {})).status).toBe(404);
  });
});
