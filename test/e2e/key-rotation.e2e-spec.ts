import { eventually, startTestApp, storeModes, TestApp } from '@app/testing';

// Rotating a key without downtime (docs/limits-and-security.md, "Keys and roles"): with
// `previous_key_valid_s` the key in use keeps working that long beside the new one, then stops, even on
// a gateway that cached it for longer; a key an earlier rotation kept stops at the next rotation; without
// it the old key stops at once, as before.
const ROOT = 'root-key-for-key-rotation-suite-0123456789';

describe.each(storeModes())('key rotation with a grace period (store: %s)', (store) => {
  let app: TestApp;
  let admin: string;
  const rotate = (user: string, body?: unknown) =>
    app.request('POST', `/api/v1/admin/accounts/kr/users/${user}/key`, { key: admin, body: body ?? {} });
  const status = async (key: string) =>
    (await app.request('GET', '/api/v1/fs/ls?uri=viking://resources', { key })).status;

  beforeAll(async () => {
    // Keys cached for five minutes: a kept key must still stop when its time is up.
    app = await startTestApp({ store, rootApiKey: ROOT, env: { MUNINN_KEY_CACHE_TTL_MS: '300000' } });
    const r = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'kr', admin_user_id: 'boss' },
    });
    admin = r.body.result.user_key;
  }, 120_000);
  afterAll(() => app?.close());

  const newUser = async (id: string) =>
    (await app.request('POST', '/api/v1/admin/accounts/kr/users', { key: admin, body: { user_id: id } })).body.result
      .user_key as string;

  it('keeps the old key working for the grace period beside the new one, then refuses it', async () => {
    const old = await newUser('agent');
    expect(await status(old)).toBe(200); // cached from here on
    const before = Date.now();
    const r = await rotate('agent', { previous_key_valid_s: 2 });
    expect(r.status).toBe(200);
    const { user_key: fresh, previous_key_expires_at: until } = r.body.result;
    expect(Date.parse(until) - before).toBeGreaterThan(1000);
    expect(Date.parse(until) - before).toBeLessThan(5000);
    expect([await status(old), await status(fresh)]).toEqual([200, 200]);
    await eventually(async () => (await status(old)) === 401, { ms: 10_000, pollMs: 100 });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until) - 50);
    expect(await status(fresh)).toBe(200);
    const trail = await app.request('GET', '/api/v1/admin/accounts/kr/audit', { key: ROOT });
    expect(trail.body.result.events[0]).toMatchObject({
      action: 'user.key',
      user_id: 'agent',
      details: { seeded: false, previous_key_valid_s: 2 },
    });
  });

  it('stops a key an earlier rotation kept at the next rotation; without a grace the old key stops at once', async () => {
    const first = await newUser('fleet');
    const second = (await rotate('fleet', { previous_key_valid_s: 600 })).body.result.user_key as string;
    expect([await status(first), await status(second)]).toEqual([200, 200]);
    const third = await rotate('fleet', { previous_key_valid_s: 600 });
    expect([await status(first), await status(second), await status(third.body.result.user_key)]).toEqual([
      401, 200, 200,
    ]);
    const fourth = await rotate('fleet');
    expect(Object.keys(fourth.body.result)).toEqual(['user_key']);
    expect([await status(second), await status(third.body.result.user_key)]).toEqual([401, 401]);
    expect(await status(fourth.body.result.user_key)).toBe(200);
  });

  it("shows each key's expiry and last use, and stops the kept key on request", async () => {
    const old = await newUser('moving');
    const user = () => app.request('GET', '/api/v1/admin/accounts/kr/users/moving', { key: admin });
    expect((await user()).body.result.keys).toEqual([
      { created_at: expect.any(String), expires_at: null, last_used_at: null },
    ]);
    expect(await status(old)).toBe(200);
    const used = (await user()).body.result.keys[0].last_used_at as string;
    expect(Date.now() - Date.parse(used)).toBeLessThan(60_000);
    const fresh = (await rotate('moving', { previous_key_valid_s: 3600 })).body.result.user_key as string;
    const both = (await user()).body.result.keys;
    expect(both).toHaveLength(2);
    expect(both[0]).toMatchObject({ expires_at: null, last_used_at: null }); // the new key, not used yet
    expect(both[1]).toMatchObject({ last_used_at: used });
    expect(Date.parse(both[1].expires_at) - Date.now()).toBeGreaterThan(3_500_000);
    expect(JSON.stringify(both)).not.toContain(fresh);
    expect(await status(fresh)).toBe(200);
    expect((await user()).body.result.keys[0].last_used_at).not.toBeNull();

    // Every agent has moved: stop the old key now. It is refused at once, though this gateway cached it.
    const revoke = () => app.request('DELETE', '/api/v1/admin/accounts/kr/users/moving/previous-key', { key: admin });
    expect((await revoke()).status).toBe(200);
    expect([await status(old), await status(fresh)]).toEqual([401, 200]);
    expect((await user()).body.result.keys).toHaveLength(1);
    const again = await revoke();
    expect([again.status, again.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const trail = await app.request('GET', '/api/v1/admin/accounts/kr/audit', { key: ROOT });
    expect(trail.body.result.events[0]).toMatchObject({ action: 'user.previous_key_revoke', user_id: 'moving' });
  });

  it('refuses a bad grace with 400 naming the field, and changes nothing', async () => {
    const key = await newUser('strict');
    for (const bad of [-1, 1.5, '60', true, 604_801]) {
      const r = await rotate('strict', { previous_key_valid_s: bad });
      expect([r.status, r.body.error.code, JSON.stringify(r.body.error.details)]).toEqual([
        400,
        'INVALID_ARGUMENT',
        expect.stringContaining('previous_key_valid_s'),
      ]);
    }
    expect(await status(key)).toBe(200);
    const doc = (await app.request('GET', '/openapi.json')).body;
    expect(doc.components.schemas.RotateKeyDto.properties.previous_key_valid_s).toMatchObject({
      type: 'integer',
      minimum: 0,
      maximum: 604_800,
    });
  });
});
