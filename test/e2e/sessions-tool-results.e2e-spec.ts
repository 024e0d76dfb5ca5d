// Large tool output externalisation and the tool-result routes (docs/sessions.md "Tool results"),
// the optional `telemetry` of the session write routes and the cumulative `token_usage` of a commit
// task, over real HTTP in api_key mode (two users) with a fake model server.
import { createHash } from 'node:crypto';
import { FakeLlmReply, FakeLlmServer, startFakeLlmServer, startTestApp, storeModes, TestApp } from '@app/testing';
import { eventually, isExtraction } from './sessions-support';

const ROOT_KEY = 'tool-results-root-key-0123456789';
const THRESHOLD = 1000;
const TURN_BUDGET = 3000;
const PREVIEW = 200;
const CAP = 4;

/** `n` code points mixing ASCII, an astral emoji (2 UTF-16 units) and CJK, with a marker word inside. */
function output(n: number, seed = 'x'): string {
  const unit = Array.from(`${seed}😀中-`);
  const cps = Array.from({ length: n }, (_, i) => unit[i % unit.length]);
  cps.splice(Math.floor(n / 2), 6, ...Array.from('NEEDLE'));
  return cps.join('');
}
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const tool = (id: string, out: string, name = 'read_file') => ({
  type: 'tool',
  tool_id: id,
  tool_name: name,
  tool_status: 'completed',
  tool_output: out,
});

describe.each(storeModes())('sessions: tool results, telemetry, cumulative token usage [%s]', (store) => {
  let app: TestApp;
  let llm: FakeLlmServer;
  let alice: string;
  let bob: string;
  let next: FakeLlmReply | string = '{}';
  const get = (path: string, key = alice) => app.request('GET', path, { key });
  const post = (path: string, body: unknown = {}, key = alice) => app.request('POST', path, { key, body });
  const toolResults = (sid: string) => `/api/v1/sessions/${sid}/tool-results`;
  const live = async (sid: string) => (await get(`/api/v1/sessions/${sid}/messages`)).body.result as any[];
  const refused = (r: { status: number; body: any }, field: string) => {
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_ARGUMENT');
    expect(JSON.stringify(r.body.error)).toContain(field);
  };

  beforeAll(async () => {
    llm = await startFakeLlmServer({ fallback: (req) => (isExtraction(req) ? next : '{"queries": []}') });
    app = await startTestApp({
      store,
      rootApiKey: ROOT_KEY,
      env: {
        LLM_BASE_URL: llm.url,
        LLM_MODEL: 'fake',
        MUNINN_SESSION_TOOL_OUTPUT_THRESHOLD_CHARS: String(THRESHOLD),
        MUNINN_SESSION_TOOL_OUTPUT_TURN_BUDGET_CHARS: String(TURN_BUDGET),
        MUNINN_SESSION_TOOL_OUTPUT_PREVIEW_CHARS: String(PREVIEW),
        MUNINN_SESSION_TOOL_RESULTS_MAX: String(CAP),
        MUNINN_TOOL_RESULT_LIST_MAX: '10',
        MUNINN_TOOL_RESULT_READ_MAX_CHARS: '5000',
        MUNINN_TOOL_RESULT_SEARCH_MAX_MATCHES: '5',
        MUNINN_TOOL_RESULT_SEARCH_CONTEXT_MAX_CHARS: '50',
        MUNINN_QUERY_MAX_CHARS: '64',
      },
    });
    const acct = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT_KEY,
      body: { account_id: 'tr', admin_user_id: 'boss' },
    });
    const boss = acct.body.result.user_key;
    const keys: Record<string, string> = {};
    for (const user of ['alice', 'bob']) {
      const u = await post('/api/v1/admin/accounts/tr/users', { user_id: user, role: 'user' }, boss);
      expect(u.status).toBe(200);
      keys[user] = u.body.result.user_key;
    }
    [alice, bob] = [keys.alice, keys.bob];
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await llm?.close();
  });

  it('a long output is stored as a tool result; the preview and fields are inline; offsets read it back whole', async () => {
    const raw = output(2500);
    const r = await post('/api/v1/sessions/t1/messages', {
      role: 'assistant',
      parts: [{ type: 'text', text: 'I read the file.' }, tool('call_1', raw)],
    });
    expect(r.status).toBe(200);
    const [msg] = await live('t1');
    const part = msg.parts[1];
    const tid = part.tool_output_ref.split('/').pop();
    expect(part).toMatchObject({
      tool_output_truncated: true,
      tool_output_original_chars: 2500,
      tool_output_sha256: sha(raw),
      tool_output_externalized_reason: 'single_threshold',
      tool_output_storage_uri: `viking://user/alice/sessions/t1/tool-results/${tid}`,
      tool_output_ref: `viking://user/alice/sessions/t1/tool-results/${tid}`,
      tool_output_group_id: msg.id,
      tool_output_group_original_chars: 2500,
      tool_output_group_budget_chars: TURN_BUDGET,
    });
    expect(part.tool_output.startsWith(Array.from(raw).slice(0, PREVIEW).join(''))).toBe(true);
    expect(part.tool_output).not.toContain('NEEDLE');
    expect(part.tool_output_preview_chars).toBe(Array.from(part.tool_output).length);
    expect(part.tool_output_preview_chars).toBeLessThan(PREVIEW + 400);

    const list = (await get(toolResults('t1'))).body.result.tool_results;
    expect(list).toEqual([
      {
        tool_result_id: tid,
        tool_name: 'read_file',
        original_chars: 2500,
        preview_chars: part.tool_output_preview_chars,
        mime_type: 'text/plain',
        synopsis_kind: 'head',
        storage_uri: part.tool_output_storage_uri,
        offset_unit: 'unicode_code_point',
      },
    ]);

    // Page through it 700 code points at a time: the pages join to the original, never splitting a pair.
    let got = '';
    let offset = 0;
    for (;;) {
      const page = (await get(`${toolResults('t1')}/${tid}?offset=${offset}&limit=700&include_metadata=false`)).body
        .result;
      expect(page).toMatchObject({ tool_result_id: tid, offset, limit: 700, offset_unit: 'unicode_code_point' });
      expect(page.total_chars).toBe(2500);
      expect(page.metadata).toBeUndefined();
      got += page.content;
      offset += Array.from(page.content as string).length;
      if (!page.has_more) break;
    }
    expect(got).toBe(raw);
    // Offset 1 is the emoji (one code point, two UTF-16 units); -1 reads to the end.
    expect((await get(`${toolResults('t1')}/${tid}?offset=1&limit=1`)).body.result.content).toBe('😀');
    const all = (await get(`${toolResults('t1')}/${tid}?limit=-1`)).body.result;
    expect([all.content, all.has_more]).toEqual([raw, false]);
    expect(all.metadata).toMatchObject({
      tool_id: 'call_1',
      tool_name: 'read_file',
      message_id: msg.id,
      sha256: sha(raw),
      original_chars: 2500,
      externalized_reason: 'single_threshold',
    });
    // The output is also a file of the session's tree (fs read, ls).
    const file = await get(`/api/v1/content/read?uri=${encodeURIComponent(part.tool_output_storage_uri)}`);
    expect(file.body.result).toBe(raw);
    const ls = await get(`/api/v1/fs/ls?uri=${encodeURIComponent('viking://user/alice/sessions/t1/tool-results')}`);
    expect(JSON.stringify(ls.body.result)).toContain(tid);
    const grep = await post('/api/v1/search/grep', {
      uri: 'viking://user/alice/sessions/t1/tool-results',
      pattern: 'NEEDLE',
    });
    expect(grep.body.result.matches.map((m: { uri: string }) => m.uri)).toEqual([part.tool_output_storage_uri]);
  });

  it('search: literal, case-insensitive, code-point offsets, context and limit; regex characters are text', async () => {
    const raw = output(2500);
    const tid = (await get(toolResults('t1'))).body.result.tool_results[0].tool_result_id;
    const s = (await get(`${toolResults('t1')}/${tid}/search?q=needle&context_chars=3`)).body.result;
    const at = Array.from(raw).join('').indexOf('NEEDLE');
    const cpOffset = Array.from(raw.slice(0, at)).length;
    expect(s).toEqual({
      tool_result_id: tid,
      matches: [
        {
          offset: cpOffset,
          offset_unit: 'unicode_code_point',
          snippet: Array.from(raw)
            .slice(cpOffset - 3, cpOffset + 9)
            .join(''),
        },
      ],
    });
    const many = (await get(`${toolResults('t1')}/${tid}/search?q=${encodeURIComponent('😀中')}&limit=5`)).body.result;
    expect(many.matches).toHaveLength(5);
    expect(many.matches[0].offset).toBe(1);
    const dots = (await get(`${toolResults('t1')}/${tid}/search?q=${encodeURIComponent('.*')}`)).body.result;
    expect(dots.matches).toEqual([]);
  });

  it('one turn over the turn budget: its largest outputs go until it fits; a tool-result aggregate is split (case 22)', async () => {
    const outs = [900, 950, 800, 700].map((n, i) => output(n, String(i)));
    const r = await post('/api/v1/sessions/t2/messages/batch', {
      messages: [{ role: 'user', parts: outs.map((o, i) => tool(`c${i}`, o, i === 0 ? 'grep' : 'read_file')) }],
    });
    expect([r.status, r.body.result.added, r.body.result.message_count]).toEqual([200, 4, 4]);
    const msgs = await live('t2');
    const parts = msgs.map((m) => m.parts[0]);
    expect(msgs.every((m) => m.message_kind === 'tool_transport')).toBe(true);
    // 3350 > 3000: the 950 one goes (2400 + its preview fits).
    expect(parts.map((p) => p.tool_output_externalized_reason ?? null)).toEqual([null, 'turn_budget', null, null]);
    expect(parts[1].tool_output_group_id).toBe(msgs[0].id);
    expect(parts[1].tool_output_group_original_chars).toBe(3350);
    expect(parts[0].tool_output).toBe(outs[0]);
    const list = (await get(`${toolResults('t2')}?tool_name=read_file`)).body.result.tool_results;
    expect(list.map((t: any) => t.original_chars)).toEqual([950]);
    expect((await get(`${toolResults('t2')}?tool_name=grep`)).body.result.tool_results).toEqual([]);
    const back = (await get(`${toolResults('t2')}/${list[0].tool_result_id}?limit=-1`)).body.result.content;
    expect(back).toBe(outs[1]);
  });

  it('preserve_raw: past the per-session maximum an output stays inline and says why', async () => {
    for (let i = 0; i < CAP + 1; i++) {
      const r = await post('/api/v1/sessions/t3/messages', {
        role: 'assistant',
        parts: [tool(`k${i}`, output(1200, `${i}`))],
      });
      expect(r.status).toBe(200);
    }
    const msgs = await live('t3');
    expect(msgs.slice(0, CAP).every((m) => m.parts[0].tool_output_truncated === true)).toBe(true);
    const last = msgs[CAP].parts[0];
    expect(last.tool_output).toBe(output(1200, `${CAP}`));
    expect(last.tool_output_ref).toBeUndefined();
    expect(last.tool_output_externalization_error).toContain('MUNINN_SESSION_TOOL_RESULTS_MAX');
    expect((await get(toolResults('t3'))).body.result.tool_results).toHaveLength(CAP);
  });

  it('404s: unknown session, unknown tool result; another user sees neither', async () => {
    const tid = (await get(toolResults('t1'))).body.result.tool_results[0].tool_result_id;
    const missing = await get(toolResults('nope'));
    expect([missing.status, missing.body.error.message]).toEqual([404, 'Session not found: nope']);
    expect(missing.body.error.details).toEqual({ type: 'session', resource: 'nope' });
    for (const path of [`${toolResults('t1')}/tr_nope`, `${toolResults('t1')}/tr_nope/search?q=a`]) {
      const r = await get(path);
      expect([r.status, r.body.error.code, r.body.error.message]).toEqual([
        404,
        'NOT_FOUND',
        'Tool result not found: tr_nope',
      ]);
    }
    // bob: alice's session id is not his; under his own session of the same name the id is unknown.
    for (const path of [toolResults('t1'), `${toolResults('t1')}/${tid}`, `${toolResults('t1')}/${tid}/search?q=a`]) {
      expect((await get(path, bob)).status).toBe(404);
    }
    expect((await post('/api/v1/sessions', { session_id: 't1' }, bob)).status).toBe(200);
    expect((await get(toolResults('t1'), bob)).body.result.tool_results).toEqual([]);
    const foreign = await get(`${toolResults('t1')}/${tid}`, bob);
    expect([foreign.status, foreign.body.error.message]).toEqual([404, `Tool result not found: ${tid}`]);
    const file = await get(
      `/api/v1/content/read?uri=${encodeURIComponent(`viking://user/alice/sessions/t1/tool-results/${tid}`)}`,
      bob,
    );
    expect(file.status).toBeGreaterThanOrEqual(403);
    expect(file.text).not.toContain('NEEDLE');
  });

  it('every query parameter is bounded by configuration: 400 naming the field, never a 500', async () => {
    const tid = (await get(toolResults('t1'))).body.result.tool_results[0].tool_result_id;
    const one = `${toolResults('t1')}/${tid}`;
    refused(await get(`${toolResults('t1')}?limit=0`), 'limit');
    refused(await get(`${toolResults('t1')}?limit=11`), 'limit');
    refused(await get(`${toolResults('t1')}?limit=ten`), 'limit');
    refused(await get(`${toolResults('t1')}?tool_name=${'n'.repeat(200)}`), 'tool_name');
    refused(await get(`${toolResults('t1')}?tool_name=a&tool_name=b`), 'tool_name');
    refused(await get(`${one}?offset=-1`), 'offset');
    refused(await get(`${one}?offset=1.5`), 'offset');
    refused(await get(`${one}?offset=99999999999`), 'offset');
    refused(await get(`${one}?limit=-2`), 'limit');
    refused(await get(`${one}?limit=5001`), 'limit');
    refused(await get(`${one}?include_metadata=maybe`), 'include_metadata');
    refused(await get(`${one}/search`), 'q');
    refused(await get(`${one}/search?q=`), 'q');
    refused(await get(`${one}/search?q=${'q'.repeat(65)}`), 'q');
    refused(await get(`${one}/search?q=a&limit=6`), 'limit');
    refused(await get(`${one}/search?q=a&limit=0`), 'limit');
    refused(await get(`${one}/search?q=a&context_chars=51`), 'context_chars');
    refused(await get(`${one}/search?q=a&context_chars=-1`), 'context_chars');
    // A path parameter over MUNINN_ID_MAX_CHARS is a 400 naming it (as for session ids).
    refused(await get(`${toolResults('t1')}/${'t'.repeat(129)}`), 'toolResultId');
    refused(await get(`/api/v1/sessions/a%2Fb/tool-results`), 'session_id');
    // Reading past the end is an empty page, not an error.
    const past = (await get(`${one}?offset=100000&limit=10`)).body.result;
    expect([past.content, past.has_more, past.total_chars]).toEqual(['', false, 2500]);
  });

  it('OpenAPI documents the routes with their configured bounds', async () => {
    const doc = (await app.request('GET', '/openapi.json', { key: alice })).body;
    const params = (path: string) =>
      Object.fromEntries(
        (doc.paths[path].get.parameters as any[]).filter((p) => p.in === 'query').map((p) => [p.name, p.schema]),
      );
    expect(params('/api/v1/sessions/{sessionId}/tool-results').limit.maximum).toBe(10);
    expect(params('/api/v1/sessions/{sessionId}/tool-results/{toolResultId}').limit).toMatchObject({
      minimum: -1,
      maximum: 5000,
    });
    const search = params('/api/v1/sessions/{sessionId}/tool-results/{toolResultId}/search');
    expect([search.q.maxLength, search.limit.maximum, search.context_chars.maximum]).toEqual([64, 5, 50]);
  });

  it('telemetry on create, add, batch, commit and PATCH config when asked; never by default (case 32)', async () => {
    const summaryOf = (r: { status: number; body: any }, operation: string) => {
      expect(r.status).toBe(200);
      expect(r.body.telemetry.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.body.telemetry.summary).toMatchObject({ operation, status: 'ok' });
      expect(r.body.telemetry.summary.duration_ms).toBeGreaterThan(0);
      return r.body.result;
    };
    expect(
      summaryOf(await post('/api/v1/sessions', { session_id: 'tm', telemetry: true }), 'session.create'),
    ).toMatchObject({
      session_id: 'tm',
    });
    const added = summaryOf(
      await post('/api/v1/sessions/tm/messages', { role: 'user', content: 'hello', telemetry: { summary: true } }),
      'session.add_message',
    );
    expect(added.message_count).toBe(1);
    summaryOf(
      await post('/api/v1/sessions/tm/messages/batch', {
        messages: [{ role: 'assistant', content: 'hi' }],
        telemetry: true,
      }),
      'session.add_messages',
    );
    const patched = await app.request('PATCH', '/api/v1/sessions/tm/config', {
      key: alice,
      body: { auto_commit_policy: null, telemetry: true },
    });
    summaryOf(patched, 'session.update_config');
    for (const off of [{}, { telemetry: false }, { telemetry: { summary: false } }]) {
      const r = await post('/api/v1/sessions/tm/messages', { role: 'user', content: 'again', ...off });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)).toEqual(['status', 'result']);
    }
    const plain = await post('/api/v1/sessions/tm/commit', {});
    expect(plain.body.result.status).toBe('accepted');
    expect(plain.body).not.toHaveProperty('telemetry');
    await post('/api/v1/sessions/tm/messages', { role: 'user', content: 'more' });
    const c = summaryOf(await post('/api/v1/sessions/tm/commit', { telemetry: true }), 'session.commit');
    expect(c.status).toBe('accepted');
  });

  it("token_usage of a commit task is the session's cumulative usage; commit_token_usage is the commit's own", async () => {
    const commitAndWait = async (content: string) => {
      await post('/api/v1/sessions/tu/messages', { role: 'user', content });
      const c = (await post('/api/v1/sessions/tu/commit')).body.result;
      expect(c.status).toBe('accepted');
      return eventually(async () => {
        const r = (await get(`/api/v1/tasks/${c.task_id}`)).body.result;
        return r?.status === 'completed' || r?.status === 'failed' ? r : null;
      });
    };
    const answer = (prompt: number, completion: number): FakeLlmReply => ({
      text: JSON.stringify({ profile: 'Likes tea.' }),
      usage: { prompt_tokens: prompt, completion_tokens: completion },
    });
    next = answer(100, 10);
    const first = await commitAndWait('I like tea.');
    expect(first.status).toBe('completed');
    expect(first.result.token_usage.llm).toMatchObject({
      prompt_tokens: 100,
      completion_tokens: 10,
      total_tokens: 110,
    });
    next = answer(200, 20);
    const second = await commitAndWait('I still like tea.');
    expect(second.result.token_usage).toEqual({
      llm: { prompt_tokens: 300, completion_tokens: 30, total_tokens: 330, cached_tokens: 0, reasoning_tokens: 0 },
      embedding: { total_tokens: 0 },
      total: { total_tokens: 330, cached_tokens: 0, reasoning_tokens: 0 },
    });
    expect(second.result.commit_token_usage.llm).toMatchObject({ prompt_tokens: 200, completion_tokens: 20 });
    expect((await get('/api/v1/sessions/tu')).body.result.llm_token_usage.total_tokens).toBe(330);
  });

  it('deleting the session deletes its tool results and their files', async () => {
    const tid = (await get(toolResults('t2'))).body.result.tool_results[0].tool_result_id;
    expect((await app.request('DELETE', '/api/v1/sessions/t2', { key: alice })).status).toBe(200);
    expect((await get(`${toolResults('t2')}/${tid}`)).status).toBe(404);
    const file = await get(
      `/api/v1/content/read?uri=${encodeURIComponent(`viking://user/alice/sessions/t2/tool-results/${tid}`)}`,
    );
    expect(file.status).toBe(404);
  });
});
