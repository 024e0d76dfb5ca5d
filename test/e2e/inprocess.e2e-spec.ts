import { QueueName } from '@app/contracts';
import { InProcessJobBus, QueueActivity } from '@app/queue';
import { startTestApp, TestApp } from '@app/testing';

// The in-process transport: the same pipeline without Redis (single-process embedded runs).
describe('in-process transport', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ env: { MUNINN_TRANSPORT: 'inprocess', REDIS_URL: 'redis://127.0.0.1:1' } });
  });

  afterAll(() => app.close());

  it('runs writes, indexing, context assembly and the dedup ledger with no Redis at all', async () => {
    expect((await app.request('GET', '/health')).body).toMatchObject({
      healthy: true,
      transport: 'inprocess',
      checks: { redis: 'not_used', store: 'up' },
    });
    const w = await app.request('POST', '/api/v1/content/write', {
      body: {
        uri: 'viking://~/memories/preferences/tea.md',
        content: 'Drinks oolong tea every afternoon.',
        mode: 'create',
        wait: true,
      },
    });
    expect(w.body.result.vector_status).toBe('complete');
    const ask = () =>
      app.request('POST', '/api/v1/search/search', {
        body: { query: 'oolong tea', mode: 'context', session_id: 's1', dedup_turns: 3, query_expansion: 'off' },
      });
    const first = await ask();
    expect(first.status).toBe(200);
    expect(first.body.result.entries.map((e: { uri: string }) => e.uri)).toContain(
      'viking://user/default/memories/preferences/tea.md',
    );
    expect(first.body.result.rendered).toContain('Drinks oolong tea every afternoon.');
    expect(first.body.result.stats.dedup).toMatchObject({ status: 'new', turns: 3 });
    const second = await ask();
    expect(second.body.result.entries.map((e: { uri: string }) => e.uri)).not.toContain(
      'viking://user/default/memories/preferences/tea.md',
    );
    expect(second.body.result.stats.dedup.cooled).toBeGreaterThan(0);
  });

  it('reports telemetry beside result, in the same shape as /find', async () => {
    const r = await app.request('POST', '/api/v1/search/search', {
      body: { query: 'tea', mode: 'context', telemetry: true },
    });
    expect(Object.keys(r.body)).toEqual(['status', 'result', 'telemetry']);
    expect(r.body.telemetry).toMatchObject({
      id: expect.any(String),
      summary: { operation: 'search.context', duration_ms: expect.any(Number) },
    });
    const plain = await app.request('POST', '/api/v1/search/search', { body: { query: 'tea', mode: 'context' } });
    expect(Object.keys(plain.body)).toEqual(['status', 'result']);
  });

  it('counts job outcomes in memory for system/wait (docs/fs-and-mcp.md, "system/wait")', async () => {
    const activity = app.nest.get(QueueActivity);
    const before = (await activity.snapshot([QueueName.Index]))[QueueName.Index].counters;
    const w = await app.request('POST', '/api/v1/content/write', {
      body: { uri: 'viking://resources/counted.md', content: 'counted\n', mode: 'create', wait: true },
    });
    expect(w.body.result.vector_status).toBe('complete');
    // A payload no worker can read fails for good; nobody awaits it, so look until it is counted.
    await app.nest.get(InProcessJobBus).enqueue(QueueName.Index, { bogus: true } as never);
    let after = (await activity.snapshot([QueueName.Index]))[QueueName.Index];
    for (let i = 0; i < 100 && after.counters.failed === before.failed; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = (await activity.snapshot([QueueName.Index]))[QueueName.Index];
    }
    expect(after.counters.processed).toBeGreaterThan(before.processed);
    expect(after.counters.failed).toBe(before.failed + 1);
    expect(after.recent[0].message).toBe('INTERNAL: malformed index job payload');
    const idle = await app.request('POST', '/api/v1/system/wait', { body: {} });
    expect(idle.body.result.Embedding).toEqual({ processed: 0, requeue_count: 0, error_count: 0, errors: [] });
  });
});
