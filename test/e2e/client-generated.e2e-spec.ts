// The TypeScript client generated from the built server's /openapi.json (libs/client) drives a
// running Muninn: write, find, context search and the deprecated recall, all typed end to end.
import { ContextEnvelopeDto, createMuninnClient, FindEnvelopeDto, MuninnClient } from '@app/client';
import { startTestApp, TestApp } from '@app/testing';

function isContext(envelope: FindEnvelopeDto | ContextEnvelopeDto): envelope is ContextEnvelopeDto {
  return 'entries' in envelope.result;
}

describe('generated client against a running server', () => {
  const ROOT = 'client-e2e-root-key-0123';
  let app: TestApp;
  let api: MuninnClient;

  beforeAll(async () => {
    app = await startTestApp({ rootApiKey: ROOT });
    const admin = createMuninnClient({ baseUrl: app.url, apiKey: ROOT });
    const account = await admin.POST('/api/v1/admin/accounts', { body: { account_id: 'gen', admin_user_id: 'ada' } });
    expect(account.response.status).toBe(200);
    api = createMuninnClient({
      baseUrl: `${app.url}/`,
      apiKey: (account.data as unknown as { result: { user_key: string } }).result.user_key,
    });
  });

  afterAll(() => app.close());

  it('write → find → context search → recall', async () => {
    const uri = 'viking://user/ada/memories/preferences/fountain-pen.md';
    const written = await api.POST('/api/v1/content/write', {
      body: {
        uri,
        content: 'Ada writes with a green fountain pen filled with iron-gall ink.',
        mode: 'create',
        wait: true,
      },
    });
    expect(written.error).toBeUndefined();
    expect(written.data?.result).toMatchObject({ uri, vector_status: 'complete', created: true });

    const found = await api.POST('/api/v1/search/find', { body: { query: 'green fountain pen ink' } });
    expect(found.response.status).toBe(200);
    const hits = found.data!.result.memories;
    expect(hits.map((h) => h.uri)).toContain(uri);
    expect(hits[0].score).toBeGreaterThan(0);

    const context = await api.POST('/api/v1/search/search', {
      body: {
        query: 'green fountain pen ink',
        mode: 'context',
        max_tokens: 400,
        detail: 'full',
        quotas: { preferences: 2 },
      },
    });
    expect(context.response.status).toBe(200);
    const envelope = context.data!;
    if (!isContext(envelope)) throw new Error('expected a context answer');
    const { entries, rendered, digest, stats } = envelope.result;
    expect([entries[0].uri, entries[0].category, entries[0].detail]).toEqual([uri, 'preferences', 'full']);
    expect(new Set(entries.map((e) => e.category))).toEqual(new Set(['preferences']));
    expect(rendered).toContain(`<memory uri="${uri}" type="preferences"`);
    expect(digest).toBe('');
    expect([
      stats.max_tokens,
      stats.quotas,
      stats.detail,
      stats.dedup.status,
      stats.other_peer_penalties.events,
    ]).toEqual([400, { preferences: 2 }, 'full', 'off', 0.1]);

    const list = await api.POST('/api/v1/search/search', { body: { query: 'green fountain pen ink' } });
    if (isContext(list.data!)) throw new Error('expected a list answer');
    expect(list.data!.result.memories.map((h) => h.uri)).toContain(uri);

    const recalled = await api.POST('/api/v1/search/recall', {
      body: { query: 'green fountain pen ink', max_chars: 2000 },
    });
    expect(recalled.response.headers.get('deprecation')).toBe('true');
    const result = recalled.data!.result;
    expect(result.entries.map((e) => e.uri)).toContain(uri);
    expect(result.stats.max_tokens).toBe(500);
    expect(result.stats.deprecated).toEqual({
      endpoint: '/api/v1/search/recall',
      successor: '/api/v1/search/search',
      successor_body: { mode: 'context' },
      aliases_used: ['max_chars'],
    });
  });

  it('errors arrive typed as the error envelope', async () => {
    const bad = await api.POST('/api/v1/search/search', { body: { query: 'q', mode: 'context', max_tokens: 10 } });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.error.code).toBe('INVALID_ARGUMENT');
    expect(bad.error?.error.message).toBe(
      'Invalid request parameters: body.max_tokens: Input should be greater than or equal to 64',
    );
    const anonymous = createMuninnClient({ baseUrl: app.url });
    const denied = await anonymous.POST('/api/v1/search/find', { body: { query: 'q' } });
    expect([denied.response.status, denied.error?.error.code]).toEqual([401, 'UNAUTHENTICATED']);
  });
});
