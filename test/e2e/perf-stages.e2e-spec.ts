// docs/architecture.md, "Stage timings": a context request's per-stage times, in the response telemetry
// when asked for and as Prometheus histograms on /metrics; the workers' own stage times never reach the
// wire otherwise. Dev mode: ROOT, default/default.
import { startTestApp, storeModes, TestApp } from '@app/testing';
import { context, seedMany } from './context-support';

const U = 'viking://user/default';
const GATEWAY_STAGES = ['auth', 'session_load', 'ledger_read', 'find', 'merge', 'assemble', 'ledger_write', 'total'];

describe.each(storeModes())('context stage timings (store: %s)', (store) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ store });
    await seedMany(
      app,
      {},
      {
        [`${U}/memories/entities/okapi.md`]: 'The okapi lives in the Ituri rainforest and eats leaves.',
        [`${U}/memories/entities/tapir.md`]: 'The tapir swims well and eats fruit in the rainforest.',
      },
    );
    const s = await app.request('POST', '/api/v1/sessions', { body: { session_id: 'stages-1' } });
    expect(s.status).toBe(200);
  }, 120000);
  afterAll(() => app.close());

  const ask = (extra: Record<string, unknown>) =>
    context(app, {
      query: 'rainforest okapi',
      session_id: 'stages-1',
      dedup_turns: 3,
      query_expansion: 'off',
      ...extra,
    });

  it('reports every stage of the request and of each job in telemetry when asked', async () => {
    const r = await ask({ telemetry: true });
    expect(r.status).toBe(200);
    expect(r.body.result.entries.length).toBeGreaterThan(0);
    const summary = r.body.telemetry.summary;
    expect(summary.operation).toBe('search.context');
    expect(Object.keys(summary.stages_ms)).toEqual(expect.arrayContaining(GATEWAY_STAGES));
    for (const ms of Object.values(summary.stages_ms)) expect(ms).toBeGreaterThanOrEqual(0);
    expect(summary.stages_ms.total).toBe(summary.duration_ms);
    const finds = summary.jobs.filter((j: { queue: string }) => j.queue === 'find');
    const assembles = summary.jobs.filter((j: { queue: string }) => j.queue === 'assemble');
    expect(finds.length).toBeGreaterThanOrEqual(1);
    expect(assembles).toHaveLength(1);
    for (const j of finds)
      expect(Object.keys(j.stages_ms)).toEqual(
        expect.arrayContaining(['queue_wait', 'embed', 'terms', 'sql', 'score', 'return', 'wall']),
      );
    expect(Object.keys(assembles[0].stages_ms)).toEqual(
      expect.arrayContaining(['queue_wait', 'body_read', 'plan', 'render', 'return', 'wall']),
    );
    // A job's worker stages and its return leg add up to its wall time as the gateway saw it.
    const { wall, ...parts } = finds[0].stages_ms as Record<string, number>;
    const sum = Object.values(parts).reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - wall)).toBeLessThan(0.1);
    // The worker-side figures stay out of the result itself.
    expect(JSON.stringify(r.body.result)).not.toMatch(/"stages(_ms)?"/);
  });

  it('keeps the default wire unchanged: no telemetry, no stages, also on /find', async () => {
    const plain = await ask({});
    expect(plain.status).toBe(200);
    expect(Object.keys(plain.body)).toEqual(['status', 'result']);
    expect(plain.text).not.toMatch(/stages/);
    const find = await app.request('POST', '/api/v1/search/find', { body: { query: 'okapi', telemetry: true } });
    expect(find.status).toBe(200);
    expect(Object.keys(find.body.result)).toEqual(['memories', 'resources', 'skills', 'total']);
    expect(find.text).not.toMatch(/stages/);
  });

  it('exposes per-stage histograms on /metrics', async () => {
    await ask({});
    const m = await app.request('GET', '/metrics');
    const count = (stage: string) => {
      const line = new RegExp(`^muninn_context_stage_duration_seconds_count\\{stage="${stage}"\\} (\\d+)$`, 'm').exec(
        m.text,
      );
      return line ? Number(line[1]) : 0;
    };
    for (const stage of [...GATEWAY_STAGES, 'find_sql', 'find_queue_wait', 'assemble_body_read', 'assemble_plan'])
      expect(count(stage)).toBeGreaterThanOrEqual(1);
    expect(count('find_sql')).toBeGreaterThanOrEqual(count('find'));
  });
});
