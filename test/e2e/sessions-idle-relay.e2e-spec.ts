import { Queue } from 'bullmq';
import { JobBus, redisOptions, scheduleSessionIdle } from '@app/queue';
import { Db, STORE_DB } from '@app/store';
import { eventually, startTestApp, storeModes, TestApp } from '@app/testing';

// docs/sessions.md, "Idle commits": a session's idle check is a delayed queue job; when that job is lost (never
// enqueued while the queue was away, gone with Redis, failed at its stall limit), the session's last messages
// would wait for a next message that may never come. Its due time is kept with the session, and the extractor's
// idle relay asks for the check again.
const ROOT = 'root-key-for-idle-relay-suite-0123456789';

describe.each(storeModes())('lost idle checks (store: %s)', (store) => {
  let app: TestApp;
  let db: Db;
  let idleQueue: Queue;
  let key = '';
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { key, body });
  /** The session's idle check due time, in ms (null: none due). */
  const dueAt = async (session: string) => {
    const { rows } = await db.query<{ at: Date | string | null }>(
      'SELECT idle_check_at AS at FROM sessions WHERE session_id = $1',
      [session],
    );
    const at = rows[0]?.at ?? null;
    return at === null ? null : new Date(at).getTime();
  };
  /** The session once it has been committed `times` times (everything archived, with these policies). */
  const committed = (session: string, times: number) =>
    eventually(
      async () => {
        const m = (await call('GET', `/api/v1/sessions/${session}`)).body.result;
        return m.commit_count === times ? m : null;
      },
      { ms: 30_000, pollMs: 200 },
    );
  const committedOnce = (session: string) => committed(session, 1);
  /** The session's check waiting in the queue. */
  const waitingCheck = (session: string) =>
    eventually(
      async () => (await idleQueue.getJobs(['delayed', 'waiting'])).find((j) => j.data.sessionId === session) ?? null,
      { ms: 10_000, pollMs: 50 },
    );
  /** Removes the session's waiting idle check from the queue, as a queue that lost it would have. */
  const loseCheck = async (session: string) => {
    const job = await waitingCheck(session);
    await job.remove();
    expect((await idleQueue.getJobs(['delayed', 'waiting'])).filter((j) => j.data.sessionId === session)).toEqual([]);
  };

  beforeAll(async () => {
    // The relay runs every grace (500 ms) and takes checks overdue by three graces.
    app = await startTestApp({ store, rootApiKey: ROOT, env: { MUNINN_OUTBOX_GRACE_MS: '500' } });
    db = app.nest.get<Db>(STORE_DB);
    const a = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'alice' },
    });
    key = a.body.result.user_key;
    idleQueue = new Queue('session-idle', {
      connection: redisOptions(process.env.REDIS_URL ?? ''),
      prefix: app.config.queues.prefix,
    });
  }, 120_000);
  afterAll(async () => {
    await idleQueue?.close();
    await app?.close();
  });

  it('commits an idle session whose check the queue lost, and then waits for nothing more', async () => {
    const policy = { idle_timeout_seconds: 1, keep_recent_count: 5 };
    await call('POST', '/api/v1/sessions', { session_id: 'lost', auto_commit_policy: policy });
    const before = Date.now();
    await call('POST', '/api/v1/sessions/lost/messages', { role: 'user', content: 'I moved to Lisbon in May.' });
    // The due time is written with the message: its idle timeout after it.
    const due = (await dueAt('lost'))!;
    expect(due).toBeGreaterThanOrEqual(before + 1000 - 50);
    expect(due).toBeLessThan(Date.now() + 1000 + 50);
    await loseCheck('lost');
    // Below every threshold and inside the keep window: only the idle check can commit this, and its job is gone.
    expect(await committedOnce('lost')).toMatchObject({ message_count: 0, pending_tokens: 0 });
    // The check that committed it leaves nothing due: the relay does not ask again.
    await eventually(async () => (await dueAt('lost')) === null, { ms: 10_000, pollMs: 100 });
  });

  it('keeps a later due time a new message set, and clears the due time of a session with nothing to commit', async () => {
    const policy = { idle_timeout_seconds: 3600 };
    await call('POST', '/api/v1/sessions', { session_id: 'chatty', auto_commit_policy: policy });
    await call('POST', '/api/v1/sessions/chatty/messages', { role: 'user', content: 'first' });
    const first = (await dueAt('chatty'))!;
    await new Promise((r) => setTimeout(r, 20));
    await call('POST', '/api/v1/sessions/chatty/messages', { role: 'user', content: 'second' });
    expect((await dueAt('chatty'))!).toBeGreaterThan(first);
    // Committed by hand, and its check (an hour away) lost and made due now: the check the relay asks for finds
    // nothing to commit and clears the due time.
    expect((await call('POST', '/api/v1/sessions/chatty/commit', {})).status).toBe(200);
    await eventually(async () => (await call('GET', '/api/v1/sessions/chatty')).body.result.pending_tokens === 0, {
      ms: 10_000,
      pollMs: 100,
    });
    await loseCheck('chatty');
    await db.query(`UPDATE sessions SET idle_check_at = now() - interval '1 minute' WHERE session_id = 'chatty'`);
    await eventually(async () => (await dueAt('chatty')) === null, { ms: 15_000, pollMs: 100 });
  });

  it('commits messages written before an idle policy was set, once idle (no check was ever scheduled for them)', async () => {
    await call('POST', '/api/v1/sessions', { session_id: 'late', auto_commit_policy: null });
    await call('POST', '/api/v1/sessions/late/messages', { role: 'user', content: 'We adopted a cat named Miso.' });
    expect(await dueAt('late')).toBeNull();
    const policy = { auto_commit_policy: { idle_timeout_seconds: 1, keep_recent_count: 5 } };
    expect((await call('PATCH', '/api/v1/sessions/late/config', policy)).status).toBe(200);
    expect(await dueAt('late')).not.toBeNull();
    expect(await committedOnce('late')).toMatchObject({ message_count: 0, pending_tokens: 0 });
  });

  it('commits by threshold when the throttle ends, with no message after the one that went over', async () => {
    const policy = { message_count_threshold: 1, min_commit_interval_seconds: 2, idle_timeout_seconds: 86_400 };
    await call('POST', '/api/v1/sessions', { session_id: 'throttled', auto_commit_policy: policy });
    const say = (content: string) => call('POST', '/api/v1/sessions/throttled/messages', { role: 'user', content });
    await say('We booked the flights to Oslo.');
    await say('The hotel is near the harbour.'); // 2 > 1: committed by the gateway at once
    const first = await committed('throttled', 1);
    await say('Dinner is at eight.');
    await say('Bring the green umbrella.'); // over again, but within 2 s of the last automatic commit
    // The commit is due when the throttle ends (kept with the session), not in a day.
    const due = (await dueAt('throttled'))!;
    expect(due).toBeLessThanOrEqual(Date.parse(first.last_auto_commit_at) + 2000 + 50);
    // Before, it waited for the next message, or for the idle commit a day later.
    expect(await committed('throttled', 2)).toMatchObject({ message_count: 0, pending_tokens: 0 });
  });

  it('asks for a lost threshold commit again, moving a check that waits a day to now', async () => {
    const policy = { message_count_threshold: 1, min_commit_interval_seconds: 2 };
    const sessions = ['lost-threshold', 'day-check'];
    await call('POST', '/api/v1/sessions', { session_id: sessions[0], auto_commit_policy: policy });
    await call('POST', '/api/v1/sessions', {
      session_id: sessions[1],
      auto_commit_policy: { ...policy, idle_timeout_seconds: 86_400 },
    });
    for (const id of sessions) {
      const say = (content: string) => call('POST', `/api/v1/sessions/${id}/messages`, { role: 'user', content });
      await say('The car is in for repair.');
      await say('It should be ready on Friday.');
      await committed(id, 1);
      await say('The garage called.');
      await say('The part is on its way.');
    }
    // The first session's check (due when the throttle ends) is lost; the second's waits a day, as a check
    // scheduled for the idle time would, and the relay's request used to be dropped into it.
    await loseCheck(sessions[0]);
    await (await waitingCheck(sessions[1])).changeDelay(86_400_000);
    for (const id of sessions) expect(await committed(id, 2)).toMatchObject({ message_count: 0 });
  });

  it('commits a session a new policy puts over its threshold, without another message', async () => {
    await call('POST', '/api/v1/sessions', { session_id: 'patched', auto_commit_policy: null });
    for (const content of ['We repainted the kitchen.', 'It is pale green now.', 'The doors are next.'])
      await call('POST', '/api/v1/sessions/patched/messages', { role: 'user', content });
    const policy = { auto_commit_policy: { message_count_threshold: 2, idle_timeout_seconds: 86_400 } };
    expect((await call('PATCH', '/api/v1/sessions/patched/config', policy)).status).toBe(200);
    // Before, the policy waited for the next message (or the idle commit a day later).
    expect(await committedOnce('patched')).toMatchObject({ message_count: 0, pending_tokens: 0 });
  });

  it("keeps a shortened throttle's due time with the session, so a lost check is asked for again", async () => {
    const policy = { message_count_threshold: 1, min_commit_interval_seconds: 3600, idle_timeout_seconds: 86_400 };
    await call('POST', '/api/v1/sessions', { session_id: 'rethrottled', auto_commit_policy: policy });
    const say = (content: string) => call('POST', '/api/v1/sessions/rethrottled/messages', { role: 'user', content });
    await say('The piano tuner comes on Monday.');
    await say('He charges by the hour.');
    const first = await committed('rethrottled', 1);
    await say('Move the plants first.');
    await say('And the lamp.'); // over again; the next automatic commit is an hour away
    await loseCheck('rethrottled');
    const shorter = { auto_commit_policy: { min_commit_interval_seconds: 5 } };
    expect((await call('PATCH', '/api/v1/sessions/rethrottled/config', shorter)).status).toBe(200);
    // The PATCH kept the new due time (the throttle's end) in its own transaction; the idle time it also set is a
    // day away. The check it scheduled is lost too: the relay asks for it.
    expect((await dueAt('rethrottled'))!).toBeLessThanOrEqual(Date.parse(first.last_auto_commit_at) + 5000 + 50);
    await loseCheck('rethrottled');
    expect(await committed('rethrottled', 2)).toMatchObject({ message_count: 0, pending_tokens: 0 });
  });

  it('keeps one check per session when a check that rescheduled itself is scheduled again', async () => {
    await call('POST', '/api/v1/sessions', { session_id: 'once', auto_commit_policy: { idle_timeout_seconds: 3600 } });
    await call('POST', '/api/v1/sessions/once/messages', { role: 'user', content: 'The boiler is serviced in March.' });
    const first = await waitingCheck('once');
    // Run now, an hour early: it finds the session not idle and schedules itself for the idle time.
    await first.promote();
    const checks = () =>
      idleQueue.getJobs(['delayed', 'waiting']).then((jobs) => jobs.filter((j) => j.data.sessionId === 'once'));
    const next = await eventually(async () => (await checks()).find((j) => j.id !== first.id) ?? null, {
      ms: 15_000,
      pollMs: 100,
    });
    // A message's schedule (the gateway's function, awaited here) moves that check instead of adding one beside it.
    const bus = app.nest.get(JobBus);
    await scheduleSessionIdle(bus, { accountId: 'acme', userId: 'alice', sessionId: 'once' }, 7_200_000);
    expect((await checks()).map((j) => j.id)).toEqual([next.id]);
  });

  it('asks for no check of an account being imported until the import is in', async () => {
    // A session the import closed early must not be committed (and extracted without the model: the import
    // suspends the account) before the import is in.
    const made = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'arriving', admin_user_id: 'ann' },
    });
    const ann = made.body.result.user_key as string;
    const policy = { idle_timeout_seconds: 1, keep_recent_count: 5 };
    await app.request('POST', '/api/v1/sessions', {
      key: ann,
      body: { session_id: 'imported', auto_commit_policy: policy },
    });
    await app.request('POST', '/api/v1/sessions/imported/messages', {
      key: ann,
      body: { role: 'user', content: 'We moved to Porto.' },
    });
    await loseCheck('imported');
    // As an import in progress marks the account (the suite cannot hold a real import open for seconds).
    await db.query(
      `UPDATE accounts SET suspended_at = now(), suspended_reason = 'import in progress' WHERE account_id = 'arriving'`,
    );
    const due = await dueAt('imported');
    // Three relay runs past the check's due time: not claimed (a claim moves the due time on), not committed.
    await new Promise((r) => setTimeout(r, 3500));
    expect(await dueAt('imported')).toBe(due);
    await db.query(`UPDATE accounts SET suspended_at = NULL, suspended_reason = NULL WHERE account_id = 'arriving'`);
    await eventually(
      async () => (await app.request('GET', '/api/v1/sessions/imported', { key: ann })).body.result.commit_count === 1,
      { ms: 30_000, pollMs: 200 },
    );
  });

  it('sets no due time for a session without an idle timeout', async () => {
    await call('POST', '/api/v1/sessions', { session_id: 'plain', auto_commit_policy: { idle_timeout_seconds: 0 } });
    await call('POST', '/api/v1/sessions', { session_id: 'manual', auto_commit_policy: null });
    for (const id of ['plain', 'manual']) {
      await call('POST', `/api/v1/sessions/${id}/messages`, { role: 'user', content: 'hello' });
      expect(await dueAt(id)).toBeNull();
    }
  });
});
