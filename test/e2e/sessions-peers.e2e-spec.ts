import { FakeLlmRequest, FakeLlmServer, startFakeLlmServer, startTestApp, TestApp } from '@app/testing';
import { eventually, isExtraction } from './sessions-support';

const text = (req: FakeLlmRequest) => req.messages.map((m) => m.content).join('\n');
const ROOT = 'sessions-peers-root-key-0123';
const OWN = 'viking://user/ann/memories';
const BOB = 'viking://user/ann/peers/bob/memories';

/**
 * Peer memories (docs/sessions.md "Peer memories"): what a commit extracts from turns carrying a
 * `peer_id` goes to that peer's space, `memory_policy.self`/`peer` decide which spaces are written,
 * reporting counts every space, and find/context serve peer memories. Extraction is the offline
 * extractor (the fake model answers garbage, so the commit falls back to it) except for conversations
 * that ask for the model's answer, which route the model's items. API-key mode: an ordinary user
 * (not the dev-mode ROOT identity), so search runs with a user's default targets.
 */
describe('sessions: peer memories', () => {
  let app: TestApp;
  let llm: FakeLlmServer;
  let key: string;
  const post = (path: string, body?: unknown, headers?: Record<string, string>) =>
    app.request('POST', path, { key, body: body ?? {}, ...(headers ? { headers } : {}) });
  const get = (path: string) => app.request('GET', path, { key });
  const task = (id: string) =>
    eventually(async () => {
      const r = (await get(`/api/v1/tasks/${id}`)).body.result;
      return r?.status === 'completed' || r?.status === 'failed' ? r : null;
    });
  const ls = (uri: string) => get(`/api/v1/fs/ls?uri=${encodeURIComponent(uri)}&recursive=true&simple=true`);
  const read = (uri: string) => get(`/api/v1/content/read?uri=${encodeURIComponent(uri)}`);
  const committed = async (sid: string, messages: unknown[], memoryPolicy?: unknown) => {
    if (memoryPolicy !== undefined)
      expect((await post('/api/v1/sessions', { session_id: sid, memory_policy: memoryPolicy })).status).toBe(200);
    expect((await post(`/api/v1/sessions/${sid}/messages/batch`, { messages })).status).toBe(200);
    const t = await task((await post(`/api/v1/sessions/${sid}/commit`)).body.result.task_id);
    expect(t.status).toBe('completed');
    return t.result;
  };
  const talk = (own: string, peer: string) => [
    { role: 'user', content: own },
    { role: 'assistant', content: 'Noted.' },
    { role: 'user', content: peer, peer_id: 'bob' },
    { role: 'assistant', content: 'Noted as well.' },
  ];

  beforeAll(async () => {
    llm = await startFakeLlmServer({
      fallback: (req) => {
        if (!isExtraction(req)) return '{"queries": []}';
        if (!text(req).includes('Use the model')) return 'not json at all';
        if (text(req).includes('Use the model again'))
          return JSON.stringify({
            preferences: [{ topic: 'tea', content: 'Bob now drinks green tea.', peer_id: 'bob' }],
          });
        return JSON.stringify({
          profile: [{ peer_id: 'bob', content: 'Bob runs the Ravensgate lighthouse.' }],
          preferences: [
            { topic: 'tea', content: 'Bob drinks smoked tea.', peer_id: 'bob' },
            { topic: 'coffee', content: 'The user drinks black coffee.' },
            { topic: 'wine', content: 'Someone else likes wine.', peer_id: 'mallory' },
          ],
          entities: [],
          events: [{ event_name: 'lighthouse talk', summary: 'Bob described the lighthouse.', from: 2, to: 3 }],
        });
      },
    });
    app = await startTestApp({
      rootApiKey: ROOT,
      env: {
        LLM_BASE_URL: llm.url,
        LLM_MODEL: 'fake',
        MUNINN_OUTBOX_GRACE_MS: '300',
        MUNINN_OUTBOX_POLL_MS: '100',
        MUNINN_SIDECAR_INTERVAL_MS: '200',
      },
    });
    const admin = await app.request('POST', '/api/v1/admin/accounts', {
      key: ROOT,
      body: { account_id: 'peers', admin_user_id: 'boss' },
    });
    const user = await app.request('POST', '/api/v1/admin/accounts/peers/users', {
      key: admin.body.result.user_key,
      body: { user_id: 'ann', role: 'user' },
    });
    key = user.body.result.user_key;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await llm?.close();
  });

  it("routes turns with a peer_id to that peer's space and the user's own turns to theirs; reporting counts both", async () => {
    const r = await committed(
      'pm-both',
      talk(
        'I prefer window seats. Yesterday I met Quintessa at the station.',
        'I love lighthouses. Tell Ottoline at the harbour I called.',
      ),
    );
    expect(r.extractor).toBe('offline');
    const uris: string[] = r.memory_uris;
    expect(uris.some((u) => u.startsWith(`${BOB}/preferences/bob/`))).toBe(true);
    expect(uris.some((u) => u.startsWith(`${BOB}/entities/mentioned/ottoline`))).toBe(true);
    expect(uris.some((u) => u.startsWith(`${BOB}/events/`))).toBe(true);
    expect(uris.some((u) => u.startsWith(`${OWN}/preferences/ann/`))).toBe(true);
    expect(uris.some((u) => u.startsWith(`${OWN}/entities/mentioned/quintessa`))).toBe(true);
    expect(uris.every((u) => u.startsWith(`${OWN}/`) || u.startsWith(`${BOB}/`))).toBe(true);
    expect(r.memories_extracted).toEqual({ memory_write: uris.length });
    // Bob's quote is in Bob's file only.
    const own = (await read(uris.find((u) => u.startsWith(`${OWN}/entities/mentioned/quintessa`))!)).body.result;
    expect(own).toContain('Quintessa');
    expect(own).not.toContain('Ottoline');
    // memory_diff.json lists the files of both spaces.
    const diff = JSON.parse((await read(r.memory_diff_uri)).body.result);
    expect(diff.summary.total_adds).toBe(uris.length);
    expect(diff.operations.adds.map((a: { uri: string }) => a.uri).sort()).toEqual([...uris].sort());
    const peerAdd = diff.operations.adds.find((a: { uri: string }) => a.uri.startsWith(`${BOB}/preferences/`));
    expect(peerAdd.memory_type).toBe('preferences');
    // The session meta sums them too.
    expect((await get('/api/v1/sessions/pm-both')).body.result.memories_extracted.total).toBe(uris.length);
  });

  it("self memory off: only the peer space is written, nothing lands in the user's own", async () => {
    const r = await committed(
      'pm-peer-only',
      [
        { role: 'user', content: 'I like gliders, said Bob about Wendeline.', peer_id: 'bob' },
        { role: 'assistant', content: 'Gliders and Wendeline, noted.' },
        { role: 'user', content: 'And I, the user, like Hortensia.' },
      ],
      { self: { enabled: false } },
    );
    expect(r.memory_uris.length).toBeGreaterThan(0);
    expect(r.memory_uris.every((u: string) => u.startsWith(`${BOB}/`))).toBe(true);
    expect(r.memory_diff_uri).toMatch(/memory_diff\.json$/);
    expect(JSON.stringify(r.memory_uris)).not.toContain('hortensia');
    const own = JSON.stringify((await ls(OWN)).body);
    expect(own).not.toContain('gliders');
    expect(own).not.toContain('hortensia');
  });

  it('peer memory off: peer turns are the user’s own; self and peer off: nothing is extracted', async () => {
    const r = await committed('pm-self-only', talk('I enjoy kayaking.', 'I enjoy climbing near Pemberly.'), {
      peer: { enabled: false },
    });
    expect(r.memory_uris.length).toBeGreaterThan(0);
    expect(r.memory_uris.every((u: string) => u.startsWith(`${OWN}/`))).toBe(true);
    expect(r.memory_uris).toContain(`${OWN}/preferences/ann/climbing.md`);

    const none = await committed('pm-none', talk('I enjoy rowing.', 'I enjoy sailing.'), {
      self: { enabled: false },
      peer: { enabled: false },
    });
    expect(none.memories_extracted).toEqual({});
    expect(none.memory_uris).toEqual([]);
    expect(none).not.toHaveProperty('memory_diff_uri');
    // Self off and no peer in the batch: nothing either.
    const noPeer = await committed('pm-no-peer', [{ role: 'user', content: 'I enjoy rowing boats.' }], {
      self: { enabled: false },
    });
    expect(noPeer.memory_uris).toEqual([]);
  });

  it("the model path routes items by their peer_id: allowed peer → its space, no peer → the user's, unknown peer dropped", async () => {
    const r = await committed('pm-model', [
      { role: 'user', content: 'Use the model. I drink black coffee.' },
      { role: 'assistant', content: 'Coffee, noted.' },
      { role: 'user', content: 'Bob here: I keep the Ravensgate lighthouse and drink smoked tea.', peer_id: 'bob' },
      { role: 'assistant', content: 'Lighthouse, noted.' },
    ]);
    expect(r.extractor).toBe('model');
    const uris: string[] = r.memory_uris;
    expect(uris).toContain(`${BOB}/profile.md`);
    expect(uris).toContain(`${BOB}/preferences/bob/tea.md`);
    expect(uris).toContain(`${OWN}/preferences/ann/coffee.md`);
    expect(uris.some((u) => u.startsWith(`${BOB}/events/`))).toBe(true);
    expect(uris.some((u) => u.includes('mallory') || u.includes('wine'))).toBe(false);
    // The prompt named the allowed peers.
    const prompt = llm.requests
      .filter(isExtraction)
      .map(text)
      .find((p) => p.includes('Use the model'))!;
    expect(prompt).toContain('Peers: bob.');

    // A later commit edits Bob's page: the model was shown it as Bob's, the same path is an edit.
    llm.requests.length = 0;
    const again = await committed('pm-model', [
      { role: 'user', content: 'Use the model again: Bob switched to green tea.', peer_id: 'bob' },
    ]);
    expect(again.memories_extracted).toEqual({ memory_edit: 1 });
    expect(again.memory_uris).toEqual([`${BOB}/preferences/bob/tea.md`]);
    expect((await read(`${BOB}/preferences/bob/tea.md`)).body.result).toContain('green tea');
    const shown = llm.requests
      .filter(isExtraction)
      .map(text)
      .find((p) => p.includes('Use the model again'))!;
    expect(shown).toContain('--- (peer_id bob) preferences/bob/tea.md');
  });

  it('peer memories are served: find in the peer space, and context search with and without the actor peer', async () => {
    await committed('pm-serve', [
      { role: 'user', content: 'I adore the Zephyrine orchard behind my house.', peer_id: 'bob' },
      { role: 'assistant', content: 'The Zephyrine orchard sounds lovely.' },
    ]);
    const found = await eventually(async () => {
      const f = await post('/api/v1/search/find', {
        query: 'Zephyrine orchard',
        target_uri: 'viking://user/ann/peers/bob',
      });
      const hits = (f.body.result?.memories ?? []) as { uri: string }[];
      return hits.some((h) => h.uri.startsWith(`${BOB}/`)) ? hits : null;
    });
    expect(found.every((h) => h.uri.startsWith(`${BOB}/`))).toBe(true);
    expect((await ls(BOB)).status).toBe(200);
    // A user's find without a target searches the whole user space, peers included; an actor peer
    // narrows the peers to its own.
    const findUris = async (headers?: Record<string, string>) =>
      JSON.stringify((await post('/api/v1/search/find', { query: 'Zephyrine orchard' }, headers)).body.result);
    expect(await findUris()).toContain(`${BOB}/`);
    expect(await findUris({ 'x-openviking-actor-peer': 'bob' })).toContain(`${BOB}/`);
    expect(await findUris({ 'x-openviking-actor-peer': 'carol' })).not.toContain(`${BOB}/`);
    const served = async (headers?: Record<string, string>, extra: Record<string, unknown> = {}) => {
      const body = { query: 'Zephyrine orchard', mode: 'context', max_tokens: 1600, ...extra };
      const c = await post('/api/v1/search/search', body, headers);
      expect(c.status).toBe(200);
      return JSON.stringify(c.body.result);
    };
    expect(await served()).toContain('Zephyrine');
    expect(await served({ 'x-openviking-actor-peer': 'bob' })).toContain(`${BOB}/`);
    // Another actor peer sees them only through the other-peer scan (peer_scope "all", the default).
    const carol = { 'x-openviking-actor-peer': 'carol' };
    expect(await served(carol)).toContain(`${BOB}/`);
    expect(await served(carol, { peer_scope: 'actor' })).not.toContain(`${BOB}/`);
  });
});
