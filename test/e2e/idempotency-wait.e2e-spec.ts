import { createServer, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Db, STORE_DB } from '@app/store';
import { callMcpTool, fakeEmbeddingBody, startTestApp, storeModes, TestApp, TestResponse } from '@app/testing';

// docs/limits-and-security.md, "A retry after a wait that ran out": a write that asked to wait for its indexing
// and was answered 504 (stored, not yet indexed) is retried with its Idempotency-Key. The retry is not applied
// again; it waits for the first attempt's indexing and, once that has ended, answers as the route would have,
// instead of the 504 being replayed for the key's whole life.
const ROOT = 'root-key-for-idempotency-wait-suite-01234';
const NOTE = 'viking://resources/waits/journal.md';
const DIM = 16;

/** An OpenAI-protocol /embeddings server whose answers are held while `hold` is on, and sent on `release`. */
async function startEmbeddings() {
  let holding = false;
  const held: Array<() => void> = [];
  const server = createServer((req, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: string[] }).input;
      const answer = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(fakeEmbeddingBody(input, DIM));
      if (holding) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    hold: () => (holding = true),
    held: () => held.length,
    release: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () => (server.closeAllConnections(), server.close()),
  };
}

describe.each(storeModes())('a retry after a wait that ran out (store: %s)', (store) => {
  let app: TestApp;
  let db: Db;
  let embeddings: Awaited<ReturnType<typeof startEmbeddings>>;
  let key = '';
  const post = (path: string, body: unknown, idem: string) =>
    app.request('POST', path, { key, body, headers: { 'idempotency-key': idem } });
  const read = async (uri: string) =>
    (await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(uri)}`, { key })).body.result as string;
  const kept = async (idem: string) =>
    (
      await db.query<{ reply_status: number; reply_resume: string | null }>(
        'SELECT reply_status, reply_resume FROM idempotency_keys WHERE idem_key = $1',
        [idem],
      )
    ).rows[0];
  /** Holds the provider until `sends` requests wait on it, so the route's wait runs out. */
  const heldUntil = async <T>(sends: number, ran: Promise<T>): Promise<T> => {
    for (let i = 0; i < 200 && embeddings.held() < sends; i++) await new Promise((r) => setTimeout(r, 50));
    return ran;
  };
  /** Sends a waiting write while the provider holds: its wait runs out, 504 with the write stored. */
  const ranOut = async (send: () => Promise<TestResponse>) => {
    embeddings.hold();
    const first = await heldUntil(1, send());
    expect([first.status, first.body.error.code, first.body.error.details.stored]).toEqual([
      504,
      'DEADLINE_EXCEEDED',
      true,
    ]);
    return first;
  };

  beforeAll(async () => {
    embeddings = await startEmbeddings();
    app = await startTestApp({
      store,
      rootApiKey: ROOT,
      env: {
        EMBEDDING_BASE_URL: embeddings.url,
        EMBEDDING_MODEL: 'fake',
        EMBEDDING_DIM: String(DIM),
        // DELETE /fs has no `timeout` of its own: its wait is the deployment's.
        MUNINN_WRITE_WAIT_MS: '2000',
        // A running attempt renews its key's lease every second; one that stopped would lose it after 3 s.
        MUNINN_IDEMPOTENCY_LEASE_S: '3',
      },
    });
    db = app.nest.get<Db>(STORE_DB);
    const a = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'alice' },
    });
    key = a.body.result.user_key;
    const start = { uri: NOTE, content: 'start\n', mode: 'create', wait: true };
    expect((await post('/api/v1/content/write', start, 'create-note')).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    embeddings?.release();
    await app?.close();
    embeddings?.close();
  });

  it('waits again for an append whose wait ran out, answers as the write would have, and applies it once', async () => {
    const append = { uri: NOTE, content: 'one\n', mode: 'append', wait: true, timeout: 1 };
    await ranOut(() => post('/api/v1/content/write', append, 'append-1'));
    expect((await kept('append-1')).reply_resume).not.toBeNull();

    // Still held: the retry waits its own second, then answers 504 again, applying nothing.
    const early = await post('/api/v1/content/write', append, 'append-1');
    expect([early.status, early.body.error.code]).toEqual([504, 'DEADLINE_EXCEEDED']);
    expect(early.headers.get('idempotent-replayed')).toBe('true');
    expect(await read(NOTE)).toBe('start\none\n');

    embeddings.release();
    const late = await post('/api/v1/content/write', append, 'append-1');
    expect(late.status).toBe(200);
    expect(late.headers.get('idempotent-replayed')).toBe('true');
    expect(late.body.result).toMatchObject({
      uri: NOTE,
      mode: 'append',
      written_bytes: 4,
      content_updated: true,
      vector_status: 'complete',
      created: false,
    });
    expect(late.body.result.queue_status.Embedding).toMatchObject({ processed: 1, error_count: 0 });
    // The answer replaced the 504: later retries replay it, byte for byte.
    expect(await kept('append-1')).toEqual({ reply_status: 200, reply_resume: null });
    const again = await post('/api/v1/content/write', append, 'append-1');
    expect([again.status, again.text]).toEqual([200, late.text]);
    expect(await read(NOTE)).toBe('start\none\n');
    // Found by what it says, so its index is the one the answer reports.
    const found = await app.request('POST', '/api/v1/search/find', { key, body: { query: 'one', limit: 5 } });
    expect(found.body.result.resources.map((r: { uri: string }) => r.uri)).toContain(NOTE);
  });

  it('keeps the key of an attempt that waits longer than its lease: a retry meanwhile is told it still runs', async () => {
    const uri = 'viking://resources/waits/long.md';
    expect(
      (await post('/api/v1/content/write', { uri, content: 'a\n', mode: 'create', wait: true }, 'long-0')).status,
    ).toBe(200);
    embeddings.hold();
    const append = { uri, content: 'long\n', mode: 'append', wait: true, timeout: 9 };
    const first = heldUntil(1, post('/api/v1/content/write', append, 'long-1'));
    let during: TestResponse;
    try {
      await new Promise((r) => setTimeout(r, 5000)); // the write is stored and waits, past its 3 s lease
      during = await post('/api/v1/content/write', append, 'long-1');
    } finally {
      embeddings.release();
    }
    // Before, the lease ran out under the running attempt: 409 reply_lost, "send a new key" (applied twice).
    expect([during.status, during.body.error.details.reason]).toEqual([409, 'in_progress']);
    const answered = await first;
    expect(answered.status).toBe(200);
    const retry = await post('/api/v1/content/write', append, 'long-1');
    expect([retry.status, retry.text, retry.headers.get('idempotent-replayed')]).toEqual([200, answered.text, 'true']);
    expect(await read(uri)).toBe('a\nlong\n');
  });

  it('waits again for a batch-write (which waits by default) and a reindex, answering each route its own shape', async () => {
    const batch = {
      root_uri: 'viking://resources/waits',
      operations: [
        { uri: 'viking://resources/waits/a.md', content: 'alpha\n', mode: 'create' },
        { uri: 'viking://resources/waits/b.md', content: 'beta\n', mode: 'create' },
      ],
      timeout: 1,
    };
    await ranOut(() => post('/api/v1/content/batch-write', batch, 'batch-1'));
    embeddings.release();
    const late = await post('/api/v1/content/batch-write', batch, 'batch-1');
    expect(late.status).toBe(200);
    expect(late.body.result).toMatchObject({
      root_uri: batch.root_uri,
      created: batch.operations.map((o) => o.uri),
      updated: [],
      unchanged: [],
      vector_status: 'complete',
    });

    const reindex = { uri: NOTE, wait: true, timeout: 1 };
    await ranOut(() => post('/api/v1/content/reindex', reindex, 'reindex-1'));
    embeddings.release();
    const done = await post('/api/v1/content/reindex', reindex, 'reindex-1');
    expect(done.status).toBe(200);
    expect(done.body.result).toMatchObject({
      uri: NOTE,
      status: 'completed',
      object_type: 'file',
      scanned_records: 1,
      rebuilt_records: 1,
      failed_records: 0,
      warnings: [],
    });
    // Its duration is the rebuild's, from the first attempt's start to the end the retry saw.
    expect(done.body.result.duration_ms).toBeGreaterThanOrEqual(1000);
  });

  it('waits again for a recursive delete whose wait ran out (the summary of the directory that held it)', async () => {
    const dir = 'viking://resources/waits/old';
    const create = { uri: `${dir}/gone.md`, content: 'gone soon\n', mode: 'create', wait: true, timeout: 10 };
    expect((await post('/api/v1/content/write', create, 'create-gone')).status).toBe(200);
    const del = () =>
      app.request('DELETE', `/api/v1/fs?uri=${encodeURIComponent(dir)}&recursive=true&wait=true`, {
        key,
        headers: { 'idempotency-key': 'delete-1' },
      });
    await ranOut(del);
    embeddings.release();
    const late = await del();
    expect(late.status).toBe(200);
    expect(late.body.result).toMatchObject({ uri: dir, estimated_deleted_count: 2, semantic_status: 'complete' });
    expect(late.body.result.queue_status.Semantic).toMatchObject({ processed: 1, error_count: 0 });
    expect((await del()).text).toBe(late.text);
  });

  it('replays a kept 504 whose resume this version cannot read as it is, never a 500', async () => {
    const w = { uri: 'viking://resources/waits/odd.md', content: 'odd\n', mode: 'create', wait: true, timeout: 1 };
    const first = await ranOut(() => post('/api/v1/content/write', w, 'odd-1'));
    const resumable = (await kept('odd-1')).reply_resume!;
    // Cut JSON; a route this version does not know (before: answered 200 with a null result, and kept); an entry
    // that is not one (before: a TypeError, 500).
    const unknownRoute = JSON.stringify({ ...JSON.parse(resumable), route: 'upload' });
    const nullEntry = JSON.stringify({ ...JSON.parse(resumable), entries: [null] });
    for (const resume of ['{"entries": 3', unknownRoute, nullEntry]) {
      await db.query(`UPDATE idempotency_keys SET reply_resume = $1 WHERE idem_key = 'odd-1'`, [resume]);
      const again = await post('/api/v1/content/write', w, 'odd-1');
      expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([504, first.text, 'true']);
    }
    embeddings.release();
  });

  it("waits again for an MCP write or edit whose wait ran out, retried with the call's _meta key", async () => {
    const uri = 'viking://resources/waits/tool.md';
    expect(
      (await post('/api/v1/content/write', { uri, content: 'tool\n', mode: 'create', wait: true }, 't0')).status,
    ).toBe(200);
    const tool = async (name: string, args: Record<string, unknown>, idem: string) => {
      const { result } = await callMcpTool(app.url, key, name, args, { 'muninn/idempotency_key': idem });
      return {
        text: (result.content as { text: string }[]).map((c) => c.text).join(''),
        isError: result.isError === true,
        replayed: result._meta?.['muninn/idempotent_replayed'] === true,
      };
    };
    const append = { uri, content: 'more\n', mode: 'append', wait: true, timeout: 1 };
    embeddings.hold();
    const first = await heldUntil(1, tool('write', append, 'tool-append'));
    expect(first).toMatchObject({ isError: true, replayed: false });
    expect(first.text).toMatch(/stored/i);
    expect((await kept('tool-append')).reply_resume).not.toBeNull();
    // Still held: the retry waits again and answers the timeout, applying nothing.
    expect(await tool('write', append, 'tool-append')).toMatchObject({ isError: true });
    expect(await read(uri)).toBe('tool\nmore\n');
    embeddings.release();
    // Before, the first timeout was replayed for the key's whole life, and an agent writing again under a new key
    // appended twice.
    const late = await tool('write', append, 'tool-append');
    expect(late).toEqual({
      text: expect.stringContaining(`Wrote 5 bytes to ${uri} (mode=append).`),
      isError: false,
      replayed: true,
    });
    expect(late.text).toContain('vector=complete');
    expect(await kept('tool-append')).toEqual({ reply_status: 200, reply_resume: null });
    expect(await tool('write', append, 'tool-append')).toEqual(late);
    expect(await read(uri)).toBe('tool\nmore\n');

    const edit = { uri, old_string: 'more', new_string: 'less', wait: true, timeout: 1 };
    embeddings.hold();
    expect(await heldUntil(1, tool('edit', edit, 'tool-edit'))).toMatchObject({ isError: true });
    embeddings.release();
    const edited = await tool('edit', edit, 'tool-edit');
    expect(edited).toMatchObject({ isError: false, replayed: true });
    expect(edited.text).toMatch(
      new RegExp(`^Edited ${uri} \\(\\d+ bytes written\\)\\.\\nIndexing: semantic=\\w+, vector=complete`),
    );
    expect(await read(uri)).toBe('tool\nless\n');
  });

  it('replays a 504 that stored nothing to wait for as it is (no write was applied, nothing is resumed)', async () => {
    // A wait that ran out before anything was stored does not exist: a refusal frees the key. A write that
    // did not ask to wait answers at once; its kept reply has nothing to resume.
    const quick = { uri: 'viking://resources/waits/quick.md', content: 'quick\n', mode: 'create' };
    embeddings.hold();
    const first = await post('/api/v1/content/write', quick, 'quick-1');
    expect([first.status, first.body.result.vector_status]).toEqual([200, 'queued']);
    expect((await kept('quick-1')).reply_resume).toBeNull();
    embeddings.release();
    const again = await post('/api/v1/content/write', quick, 'quick-1');
    expect([again.status, again.text]).toEqual([200, first.text]);
  });
});
