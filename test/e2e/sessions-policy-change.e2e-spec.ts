import { Db, SessionArchiveRepository, SessionIdleCheckRepository, STORE_DB } from '@app/store';
import { eventually, startTestApp, storeModes, TestApp } from '@app/testing';

// docs/sessions.md, "Automatic commit" and "Idle commits": what a change of a session's policy does at once, and
// how a session's idle check keeps its due time against writes it did not see. The idle relay runs with the
// default grace here (it asks for a lost check 30 s after its due time), so what is committed within seconds was
// committed by the change itself, not by the relay.
const ROOT = 'root-key-for-policy-change-suite-012345';

describe.each(storeModes())('session policy changes (store: %s)', (store) => {
  let app: TestApp;
  let db: Db;
  let key = '';
  const call = (method: string, path: string, body?: unknown) => app.request(method, path, { key, body });
  const say = (session: string, content: string) =>
    call('POST', `/api/v1/sessions/${session}/messages`, { role: 'user', content });
  /** The session's idle check due time, exactly as stored (null: none due). */
  const dueAt = async (session: string) =>
    (
      await db.query<{ at: string | null }>('SELECT idle_check_at::text AS at FROM sessions WHERE session_id = $1', [
        session,
      ])
    ).rows[0]?.at ?? null;

  beforeAll(async () => {
    app = await startTestApp({ store, rootApiKey: ROOT });
    db = app.nest.get<Db>(STORE_DB);
    const a = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'acme', admin_user_id: 'alice' },
    });
    key = a.body.result.user_key;
  }, 120_000);
  afterAll(() => app?.close());

  it('commits a session a new idle timeout makes idle at once, without waiting for the relay', async () => {
    await call('POST', '/api/v1/sessions', { session_id: 'quiet', auto_commit_policy: null });
    await say('quiet', 'We painted the kitchen green.');
    await new Promise((r) => setTimeout(r, 1200));
    const patched = await call('PATCH', '/api/v1/sessions/quiet/config', {
      auto_commit_policy: { idle_timeout_seconds: 1, keep_recent_count: 5 },
    });
    expect(patched.status).toBe(200);
    // Before, no check was asked for: the session waited for the relay (due time + 30 s).
    const meta = await eventually(
      async () => {
        const m = (await call('GET', '/api/v1/sessions/quiet')).body.result;
        return m.commit_count === 1 ? m : null;
      },
      { ms: 15_000, pollMs: 200 },
    );
    expect(meta).toMatchObject({ message_count: 0, pending_tokens: 0 });
  });

  it('gives messages a commit kept live a due time when a policy with an idle timeout is set', async () => {
    await call('POST', '/api/v1/sessions', { session_id: 'kept', auto_commit_policy: null });
    for (const text of ['one', 'two', 'three']) await say('kept', text);
    expect((await call('POST', '/api/v1/sessions/kept/commit', { keep_recent_count: 3 })).status).toBe(200);
    const kept = (await call('GET', '/api/v1/sessions/kept')).body.result;
    expect([kept.message_count, kept.pending_tokens]).toEqual([3, 0]);
    await call('PATCH', '/api/v1/sessions/kept/config', { auto_commit_policy: { idle_timeout_seconds: 3600 } });
    // An idle commit takes kept messages too, so a lost check must be asked for again (before: no due time).
    expect(await dueAt('kept')).not.toBeNull();
  });

  it('applies two changes of different fields sent at once, each merged with the stored policy', async () => {
    await call('POST', '/api/v1/sessions', { session_id: 'both', auto_commit_policy: null });
    for (let round = 1; round <= 5; round++) {
      const [a, b] = await Promise.all([
        call('PATCH', '/api/v1/sessions/both/config', { auto_commit_policy: { message_count_threshold: 100 + round } }),
        call('PATCH', '/api/v1/sessions/both/config', { auto_commit_policy: { min_commit_interval_seconds: round } }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const policy = (await call('GET', '/api/v1/sessions/both')).body.result.auto_commit_policy;
      expect([policy.message_count_threshold, policy.min_commit_interval_seconds]).toEqual([100 + round, round]);
    }
  });

  it("keeps a due time a message set while a check ran, instead of the check's stale one", async () => {
    const checks = new SessionIdleCheckRepository(db);
    await call('POST', '/api/v1/sessions', {
      session_id: 'raced',
      auto_commit_policy: { idle_timeout_seconds: 3600 },
    });
    await say('raced', 'first');
    const job = { accountId: 'acme', userId: 'alice', sessionId: 'raced' };
    // A check reads the due time, then a message comes (a threshold, a throttle: a due time the check did not see).
    const seen = await checks.dueOf(job);
    await say('raced', 'second');
    const set = await dueAt('raced');
    expect(set).not.toBe(seen);
    // The check ends with its next check two hours away: before, greatest() pushed the message's due time back.
    await checks.checked(job, Date.now() + 7_200_000, seen!);
    expect(await dueAt('raced')).toBe(set);
    // With nothing written since it read, the check's own result stands.
    await checks.checked(job, null, set);
    expect(await dueAt('raced')).toBeNull();
  });

  it('makes at most one automatic commit in flight per session, decided under its lock', async () => {
    const archives = app.nest.get(SessionArchiveRepository);
    const caller = { accountId: 'acme', userId: 'alice', role: 'user' as const, actorPeerId: null };
    await call('POST', '/api/v1/sessions', { session_id: 'twice', auto_commit_policy: null });
    await say('twice', 'one');
    const auto = { keepRecentCount: 0, persistKeep: true, auto: true, eventTags: null };
    // Its extraction job is never enqueued here, so the first commit's task stays pending.
    const first = await archives.commit(caller, 'twice', auto, async () => undefined);
    expect(first.status).toBe('accepted');
    await say('twice', 'two');
    // The gateway's commit and a check the relay asked for, each having looked before the other began: the second
    // is skipped (before, both committed, two tasks in flight for one session).
    const second = await archives.commit(caller, 'twice', auto, async () => undefined);
    expect(second).toMatchObject({ status: 'skipped', reason: 'commit_in_flight' });
    // A commit asked for by hand is not held to it.
    const manual = await archives.commit(caller, 'twice', { ...auto, auto: false }, async () => undefined);
    expect(manual.status).toBe('accepted');
  });
});
