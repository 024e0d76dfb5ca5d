import { Db, IdempotencyRepository, runInWriteScope, STORE_DB, WriteScope } from '@app/store';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { rawRequest } from './hostile-support';
import { eventually, startTestApp, storeModes, TestApp } from '@app/testing';
import { IdempotencySweepService } from '../../apps/gateway/src/idempotency/idempotency-sweep.service';

// Retried writes (docs/limits-and-security.md, "Retrying a write: Idempotency-Key"): a write sent again
// with the same key is applied once and answered with the first reply; the key with another request is
// 422; a key whose first attempt still runs is 409; a refusal that changed nothing frees the key; keys
// are per caller, expire, and are bounded per account.
const ROOT = 'root-key-for-idempotency-suite-0123456789';
const NOTE = 'viking://resources/journal.md';

describe.each(storeModes())('Idempotency-Key (store: %s)', (store) => {
  let app: TestApp;
  let db: Db;
  const keys: Record<string, string> = {};
  const post = (path: string, body: unknown, idem?: string, key = keys.alice) =>
    app.request('POST', path, { key, body, headers: idem === undefined ? {} : { 'idempotency-key': idem } });
  const append = (text: string, idem?: string) =>
    post('/api/v1/content/write', { uri: NOTE, content: text, mode: 'append' }, idem);
  const read = async () =>
    (await app.request('GET', `/api/v1/content/read?uri=${encodeURIComponent(NOTE)}`, { key: keys.alice })).body
      .result as string;
  const live = async (session: string, key = keys.alice) =>
    (await app.request('GET', `/api/v1/sessions/${session}/messages`, { key })).body.result as unknown[];
  const row = async (idem: string) =>
    (await db.query<Record<string, unknown>>('SELECT * FROM idempotency_keys WHERE idem_key = $1', [idem])).rows;

  beforeAll(async () => {
    app = await startTestApp({ store, rootApiKey: ROOT, env: { MUNINN_IDEMPOTENCY_MAX_KEYS: '100' } });
    db = app.nest.get<Db>(STORE_DB);
    const a = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'alice' },
    });
    keys.alice = a.body.result.user_key;
    const b = await app.request('POST', '/api/v1/admin/accounts/acme/users', {
      key: keys.alice,
      body: { user_id: 'bob' },
    });
    keys.bob = b.body.result.user_key;
    expect((await post('/api/v1/content/write', { uri: NOTE, content: 'start\n', mode: 'create' })).status).toBe(200);
  }, 120_000);
  afterAll(() => app?.close());

  it('applies a retried append once and answers the retry with the first reply', async () => {
    const first = await append('line one\n', 'append-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await append('line one\n', 'append-1');
    expect([again.status, again.text]).toEqual([200, first.text]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await read()).toBe('start\nline one\n');
    // Without a key the same request is applied each time it is sent.
    await append('free\n');
    await append('free\n');
    expect(await read()).toBe('start\nline one\nfree\nfree\n');
  });

  it('applies a retried session message once; a new key is a new message', async () => {
    const msg = { role: 'user', content: 'I moved to Lisbon in May.' };
    const first = await post('/api/v1/sessions/trip/messages', msg, 'msg-1');
    const again = await post('/api/v1/sessions/trip/messages', msg, 'msg-1');
    expect(first.body.result.message_count).toBe(1);
    expect(again.text).toBe(first.text);
    expect(await live('trip')).toHaveLength(1);
    expect((await post('/api/v1/sessions/trip/messages', msg, 'msg-2')).body.result.message_count).toBe(2);
    const batch = { messages: [msg, { role: 'assistant', content: 'Noted.' }] };
    const b1 = await post('/api/v1/sessions/trip/messages/batch', batch, 'batch-1');
    const b2 = await post('/api/v1/sessions/trip/messages/batch', batch, 'batch-1');
    expect([b1.body.result.added, b2.text]).toEqual([2, b1.text]);
    expect(await live('trip')).toHaveLength(4);
  });

  it('takes a retry that reorders its keys or query parameters for the same request', async () => {
    const first = await post('/api/v1/content/write', { uri: NOTE, content: 'ordered\n', mode: 'append' }, 'order-1');
    const again = await post('/api/v1/content/write', { mode: 'append', content: 'ordered\n', uri: NOTE }, 'order-1');
    expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);
    expect((await read()).match(/ordered/g)).toHaveLength(1);
    // Nested objects too: an agent that rebuilds its messages writes their keys in another order.
    const messages = [{ role: 'user', parts: [{ type: 'text', text: 'Flying to Oslo.' }] }];
    const b1 = await post('/api/v1/sessions/nested/messages/batch', { messages }, 'order-2');
    const reordered = [{ parts: [{ text: 'Flying to Oslo.', type: 'text' }], role: 'user' }];
    const b2 = await post('/api/v1/sessions/nested/messages/batch', { messages: reordered }, 'order-2');
    expect([b1.status, b2.text]).toEqual([200, b1.text]);
    expect(await live('nested')).toHaveLength(1);
    // Query parameters are sorted by name; the values still count.
    for (const name of ['gone-a.md', 'gone-b.md'])
      await post('/api/v1/content/write', { uri: `viking://resources/${name}`, content: 'x', mode: 'create' });
    const del = (query: string) =>
      app.request('DELETE', `/api/v1/fs?${query}`, { key: keys.alice, headers: { 'idempotency-key': 'order-3' } });
    const d1 = await del('uri=viking%3A%2F%2Fresources%2Fgone-a.md&recursive=false');
    const d2 = await del('recursive=false&uri=viking://resources/gone-a.md');
    expect([d1.status, d2.text, d2.headers.get('idempotent-replayed')]).toEqual([200, d1.text, 'true']);
    expect((await del('recursive=false&uri=viking://resources/gone-b.md')).status).toBe(422);
    expect(
      (await app.request('GET', '/api/v1/fs/stat?uri=viking://resources/gone-b.md', { key: keys.alice })).status,
    ).toBe(200);
  });

  it('keeps the digest of the request as sent beside the canonical one, so either version recognises the other', async () => {
    const body = { uri: NOTE, content: 'upgraded\n', mode: 'append' };
    const first = await post('/api/v1/content/write', body, 'order-4');
    // The digest a version before canonical fingerprints computes and compares: method, URL and actor peer as
    // sent, then the body's JSON as sent. It is what `fingerprint` holds, so such a gateway (a rolling deploy, a
    // rollback) recognises this key's retry.
    const asSent = createHash('sha256')
      .update('POST /api/v1/content/write\n\n')
      .update(JSON.stringify(body))
      .digest('base64url');
    expect((await row('order-4'))[0]).toMatchObject({ fingerprint: asSent });
    // A key that version claimed has no canonical digest: recognised by the digest as sent.
    await db.query('UPDATE idempotency_keys SET canonical_fingerprint = NULL WHERE idem_key = $1', ['order-4']);
    const again = await post('/api/v1/content/write', body, 'order-4');
    expect([again.status, again.text, again.headers.get('idempotent-replayed')]).toEqual([200, first.text, 'true']);
    expect((await read()).match(/upgraded/g)).toHaveLength(1);
    const other = await post('/api/v1/content/write', { ...body, content: 'other\n' }, 'order-4');
    expect(other.status).toBe(422);
    // Such a version taking over an expired key rewrites the digest as sent only: the canonical one left from the
    // key's previous request no longer belongs to it, and that request's retry is not replayed the new one's reply.
    const fresh = await post('/api/v1/content/write', body, 'order-5');
    await db.query(`UPDATE idempotency_keys SET fingerprint = 'another-request' WHERE idem_key = 'order-5'`);
    expect((await post('/api/v1/content/write', body, 'order-5')).status).toBe(422);
    expect(fresh.status).toBe(200);
  });

  // PostgreSQL only: the suite holds a lock on `sessions` so the attempt is still running when its client
  // goes; PGlite has one connection, which the held lock would keep from the attempt's claim as well.
  (store === 'postgres' ? it : it.skip)(
    'keeps the reply of an attempt whose client went away, for the retry',
    async () => {
      const body = JSON.stringify({ role: 'user', content: 'sent over a dying link' });
      const { port } = new URL(app.url);
      const socket = connect(Number(port), '127.0.0.1');
      await db.transaction(async (tx) => {
        await tx.query('LOCK TABLE sessions IN EXCLUSIVE MODE');
        socket.write(
          `POST /api/v1/sessions/gone/messages HTTP/1.1\r\nHost: x\r\nx-api-key: ${keys.alice}\r\n` +
            `idempotency-key: gone-1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        // The attempt holds its key and waits on the lock: the client gives up before any answer.
        await eventually(async () => (await row('gone-1')).length === 1, { ms: 3000, pollMs: 20 });
        socket.destroy();
      });
      await eventually(async () => (await row('gone-1'))[0]?.reply_status === 200, 10_000);
      const retry = await post('/api/v1/sessions/gone/messages', JSON.parse(body), 'gone-1');
      expect([retry.status, retry.headers.get('idempotent-replayed'), retry.body.result.message_count]).toEqual([
        200,
        'true',
        1,
      ]);
      expect(await live('gone')).toHaveLength(1);
    },
  );

  it('commits a session once when the commit is retried: the same task, one archive', async () => {
    const msgs = { messages: [{ role: 'user', content: 'We adopted a cat named Miso.' }] };
    expect((await post('/api/v1/sessions/pets/messages/batch', msgs)).status).toBe(200);
    const first = await post('/api/v1/sessions/pets/commit', {}, 'commit-1');
    expect(first.body.result).toMatchObject({ status: 'accepted', archived: true });
    const again = await post('/api/v1/sessions/pets/commit', {}, 'commit-1');
    expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([200, 'true', first.text]);
    const meta = (await app.request('GET', '/api/v1/sessions/pets', { key: keys.alice })).body.result;
    expect(meta).toMatchObject({ commit_count: 1, total_message_count: 1 });
  });

  it('refuses the key with another request (422) and names the header', async () => {
    expect((await append('a\n', 'shared-key')).status).toBe(200);
    for (const other of [
      () => append('b\n', 'shared-key'),
      () => post('/api/v1/sessions/trip/messages', { role: 'user', content: 'a\n' }, 'shared-key'),
      () =>
        app.request('POST', '/api/v1/content/write', {
          key: keys.alice,
          body: { uri: NOTE, content: 'a\n', mode: 'append' },
          headers: { 'idempotency-key': 'shared-key', 'x-openviking-actor-peer': 'assistant-b' },
        }),
    ]) {
      const r = await other();
      expect([r.status, r.body.error.code, r.body.error.details]).toEqual([
        422,
        'IDEMPOTENCY_KEY_REUSED',
        { field: 'Idempotency-Key', reason: 'different_request' },
      ]);
    }
    expect((await read()).endsWith('a\n')).toBe(true);
    expect(await read()).not.toContain('b\n');
  });

  it('keeps keys per caller: the same key of another user is their own', async () => {
    const msg = { role: 'user', content: 'hello' };
    expect((await post('/api/v1/sessions/mine/messages', msg, 'per-user')).status).toBe(200);
    const bob = await post('/api/v1/sessions/mine/messages', msg, 'per-user', keys.bob);
    expect([bob.status, bob.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(await live('mine', keys.bob)).toHaveLength(1);
    expect(await live('mine')).toHaveLength(1);
  });

  it('frees the key of a refusal that changed nothing, so the corrected retry runs', async () => {
    const bad = await post('/api/v1/sessions/fix/messages/batch', { messages: 'not a list' }, 'fix-1');
    expect(bad.status).toBe(400);
    expect(await row('fix-1')).toHaveLength(0);
    const good = await post(
      '/api/v1/sessions/fix/messages/batch',
      { messages: [{ role: 'user', content: 'x' }] },
      'fix-1',
    );
    expect([good.status, good.body.result.message_count]).toEqual([200, 1]);
    expect((await row('fix-1'))[0]).toMatchObject({ applied: true, reply_status: 200 });
  });

  it('frees the key of a refusal whose transaction only read, though it committed', async () => {
    // The cancel reads the task in a transaction, finds none, and answers 404 without throwing inside it: nothing
    // was written, so the key is free (before, the transaction marked the key as it began, and the 404 was kept).
    const unknown = '00000000-0000-4000-8000-000000000000';
    const cancel = await post(`/api/v1/tasks/${unknown}/cancel`, {}, 'read-only-1');
    expect(cancel.status).toBe(404);
    expect(await row('read-only-1')).toHaveLength(0);
  });

  it('refuses a retry while the first attempt runs, takes over one that changed nothing, never re-applies a lost reply', async () => {
    const msg = { role: 'user', content: 'once' };
    expect((await post('/api/v1/sessions/lease/messages', msg, 'lease-1')).status).toBe(200);
    // As if the first attempt were still running on another gateway.
    await db.query(
      `UPDATE idempotency_keys SET reply_status = NULL, applied = false, lease_until = now() + interval '1 minute'
       WHERE idem_key = 'lease-1'`,
    );
    const running = await post('/api/v1/sessions/lease/messages', msg, 'lease-1');
    expect([running.status, running.body.error.code, running.body.error.details.reason]).toEqual([
      409,
      'CONFLICT',
      'in_progress',
    ]);
    expect(running.headers.get('retry-after')).toBe('1');
    // As if that attempt had stopped (a crashed gateway) before any write: the retry runs it.
    await db.query(`UPDATE idempotency_keys SET lease_until = now() - interval '1 second' WHERE idem_key = 'lease-1'`);
    const taken = await post('/api/v1/sessions/lease/messages', msg, 'lease-1');
    expect([taken.status, taken.body.result.message_count]).toEqual([200, 2]);
    // As if it had stopped after its write but before answering: not applied again, and said so.
    await db.query(
      `UPDATE idempotency_keys SET reply_status = NULL, applied = true, lease_until = now() - interval '1 second'
       WHERE idem_key = 'lease-1'`,
    );
    const lost = await post('/api/v1/sessions/lease/messages', msg, 'lease-1');
    expect([lost.status, lost.body.error.details.reason]).toEqual([409, 'reply_lost']);
    expect(await live('lease')).toHaveLength(2);
  });

  it('fails the write of an attempt another took over: nothing of it is applied', async () => {
    const keysRepo = app.nest.get(IdempotencyRepository);
    const owner = { accountId: 'acme', userId: 'alice' };
    const claimed = await keysRepo.claim(owner, 'superseded-1', { value: 'fp', asSent: 'fp' });
    if (claimed.kind !== 'claimed') throw new Error(`expected a claim, got ${claimed.kind}`);
    await db.query(`UPDATE idempotency_keys SET token = 'someone-else' WHERE idem_key = 'superseded-1'`);
    await db.query('CREATE TABLE IF NOT EXISTS idempotency_keys_probe (n int)');
    const scope: WriteScope = {
      state: 'open',
      applied: false,
      mark: (tx) => keysRepo.markApplied(tx, claimed.claim),
    };
    await expect(
      runInWriteScope(scope, () => db.query(`INSERT INTO idempotency_keys_probe VALUES (1)`)),
    ).rejects.toMatchObject({ code: 'CONFLICT', details: { reason: 'superseded' } });
    expect((await db.query('SELECT count(*)::int AS n FROM idempotency_keys_probe')).rows[0]).toEqual({ n: 0 });
    expect(scope.applied).toBe(false);
  });

  it('refuses a malformed key with 400 naming the header, and bounds it', async () => {
    for (const bad of ['has space', 'x'.repeat(256)]) {
      const r = await append('never\n', bad);
      expect([r.status, r.body.error.code, r.body.error.details.field]).toEqual([
        400,
        'INVALID_ARGUMENT',
        'Idempotency-Key',
      ]);
    }
    // Bytes outside ASCII, and the header sent twice (joined with ", "), over the raw wire.
    const wire = { 'x-api-key': keys.alice, 'content-type': 'application/json' };
    const payload = JSON.stringify({ uri: NOTE, content: 'never\n', mode: 'append' });
    for (const extra of [
      { 'idempotency-key': Buffer.from([0x6b, 0xff]).toString('latin1') },
      { 'idempotency-key': ['a', 'b'] },
    ]) {
      const r = await rawRequest(app.url, 'POST', '/api/v1/content/write', {
        headers: { ...wire, ...(extra as Record<string, string>) },
        body: payload,
      });
      expect([r.status, r.body.error.details.field]).toEqual([400, 'Idempotency-Key']);
    }
    expect(await read()).not.toContain('never');
    const doc = (await app.request('GET', '/openapi.json')).body;
    const header = doc.paths['/api/v1/content/write'].post.parameters.find(
      (p: { name: string }) => p.name === 'Idempotency-Key',
    );
    expect(header).toMatchObject({ in: 'header', required: false, schema: { type: 'string', maxLength: 255 } });
    expect(doc.paths['/api/v1/content/write'].post.responses['422']).toBeDefined();
  });

  it('deletes a user with their keys, forgets expired keys and trims an account to its newest keys', async () => {
    expect(await row('per-user')).toHaveLength(2);
    expect((await app.request('DELETE', '/api/v1/admin/accounts/acme/users/bob', { key: keys.alice })).status).toBe(
      200,
    );
    expect((await row('per-user')).map((r) => r.user_id)).toEqual(['alice']);

    const sweep = app.nest.get(IdempotencySweepService);
    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idem_key = 'append-1'`);
    for (let i = 0; i < 105; i++)
      expect(
        (await post(`/api/v1/sessions/many/messages`, { role: 'user', content: `m${i}` }, `many-${i}`)).status,
      ).toBe(200);
    await sweep.tick();
    expect(await row('append-1')).toHaveLength(0);
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM idempotency_keys WHERE account_id = 'acme'`,
    );
    // The newest 100, and the older key an attempt still holds (`superseded-1`, its lease running):
    // deleting it would fail that attempt's write.
    expect(rows[0]!.n).toBe(101);
    expect(await row('superseded-1')).toHaveLength(1);
    expect(await row('many-104')).toHaveLength(1);
    expect(await row('many-0')).toHaveLength(0);
    // The expired key is a new key again: the append applies.
    expect((await append('line one\n', 'append-1')).headers.get('idempotent-replayed')).toBeNull();
  });

  it("keeps a retry's answer to a resumed wait only on the attempt whose 504 it read", async () => {
    const repo = app.nest.get(IdempotencyRepository);
    const owner = { accountId: 'acme', userId: 'alice' };
    const c = await repo.claim(owner, 'resumed-1', { value: 'v', asSent: 's' });
    if (c.kind !== 'claimed') throw new Error(c.kind);
    const wait = { route: 'write' as const, answer: {}, entries: [], timeoutS: 1, startedAt: 1 };
    await repo.keepReply(c.claim, { status: 504, contentType: 'application/json', body: '{}', resume: wait });
    const answer = { status: 200, contentType: 'application/json', body: '{"ok":true}' };
    // The key expired (or was trimmed) and another request claimed it while the retry waited: its reply stays.
    await repo.keepResumed(owner, 'resumed-1', 'another-attempt', answer);
    expect((await row('resumed-1'))[0]).toMatchObject({ reply_status: 504 });
    await repo.keepResumed(owner, 'resumed-1', c.claim.token, answer);
    expect((await row('resumed-1'))[0]).toMatchObject({ reply_status: 200, reply_resume: null });
  });

  it('keeps a claimed key at least until its lease ends, whatever its time to live', async () => {
    // A 60 s life and a 300 s lease: before, the row expired under its running attempt at 60 s, before the first
    // renewal (at 100 s), and a retry then claimed it afresh and applied the write again.
    const repo = new IdempotencyRepository(db, 60, { keys: 1000, bytes: 1 << 20 }, 300);
    const c = await repo.claim({ accountId: 'acme', userId: 'alice' }, 'short-life', { value: 'v', asSent: 's' });
    expect(c.kind).toBe('claimed');
    const { rows } = await db.query<{ ok: boolean }>(
      `SELECT expires_at >= lease_until AND lease_until > now() + interval '250 seconds' AS ok
       FROM idempotency_keys WHERE idem_key = 'short-life'`,
    );
    expect(rows[0].ok).toBe(true);
  });

  it('trims an account to its bytes of kept replies, newest first, whatever its key count', async () => {
    const repo = new IdempotencyRepository(db, 86_400, { keys: 1000, bytes: 4096 });
    const owner = { accountId: 'bytes-acct', userId: 'u' };
    for (let i = 0; i < 10; i++) {
      const c = await repo.claim(owner, `b-${i}`, { value: 'fp', asSent: 'fp' });
      if (c.kind !== 'claimed') throw new Error(`expected a claim, got ${c.kind}`);
      await repo.keepReply(c.claim, { status: 200, contentType: 'application/json', body: 'x'.repeat(1000) });
    }
    expect(await repo.trimAccount('bytes-acct')).toBe(6);
    const { rows } = await db.query<{ idem_key: string }>(
      `SELECT idem_key FROM idempotency_keys WHERE account_id = 'bytes-acct' ORDER BY created_at DESC`,
    );
    // 4 × 1,000 bytes fit 4,096; the fifth newest would not.
    expect(rows.map((r) => r.idem_key)).toEqual(['b-9', 'b-8', 'b-7', 'b-6']);
  });

  it('counts what became of each key on /metrics', async () => {
    const text = (await app.request('GET', '/metrics', { key: ROOT })).text;
    const count = (outcome: string) =>
      Number(new RegExp(`^muninn_idempotency_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    // What the cases above did: at least this many of each.
    expect({
      kept: count('kept') >= 10,
      replayed: count('replayed') >= 3,
      released: count('released') >= 1,
      different_request: count('different_request') >= 3,
      in_progress: count('in_progress') >= 1,
      reply_lost: count('reply_lost') >= 1,
      malformed: count('malformed') >= 4,
    }).toEqual({
      kept: true,
      replayed: true,
      released: true,
      different_request: true,
      in_progress: true,
      reply_lost: true,
      malformed: true,
    });
  });
});
