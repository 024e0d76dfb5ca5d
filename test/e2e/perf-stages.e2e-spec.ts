// docs/architecture.md, "Stage timings": a context request's per-stage times, in the response telemetry
// when asked for and as Prometheus histograms on /metrics; the workers' own stage times never reach the
// wire otherwise. Dev mode: ROOT, default/default.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
    // The request's find calls (own space, peer scan) travel in one batch job, then one assemble job.
    expect(summary.jobs.map((j: { queue: string }) => j.queue)).toEqual(['find', 'assemble']);
    const [find, assemble] = summary.jobs as { stages_ms: Record<string, number> }[];
    expect(Object.keys(find.stages_ms)).toEqual(
      expect.arrayContaining(['queue_wait', 'run', 'embed', 'terms', 'sql', 'score', 'return', 'wall']),
    );
    expect(Object.keys(assemble.stages_ms)).toEqual(
      expect.arrayContaining(['queue_wait', 'run', 'body_read', 'plan', 'render', 'return', 'wall']),
    );
    // Queue wait, the worker's run and the return leg add up to the job's wall time as the gateway saw it
    // (up to the millisecond resolution of the job's add time, which queue_wait starts from).
    for (const { stages_ms: s } of [find, assemble]) {
      expect(s.run).toBeLessThanOrEqual(s.wall);
      expect(Math.abs(s.queue_wait + s.run + s.return - s.wall)).toBeLessThan(2);
    }
    // The worker-side figures stay out of the result itself.
    expect(JSON.stringify(r.body.result)).not.toMatch(/"stages(_ms)?"/);
  });

  it('answers with the telemetry shape the published OpenAPI schema describes', async () => {
    const schemas = JSON.parse(readFileSync(join(__dirname, '../../libs/client/openapi.json'), 'utf8')).components
      .schemas;
    const keys = (name: string) => Object.keys(schemas[name].properties).sort();
    const r = await ask({ telemetry: true });
    expect(Object.keys(r.body.telemetry).sort()).toEqual(keys('ContextTelemetryDto'));
    expect(Object.keys(r.body.telemetry.summary).sort()).toEqual(keys('ContextTelemetrySummaryDto'));
    for (const job of r.body.telemetry.summary.jobs) {
      expect(Object.keys(job).sort()).toEqual(keys('ContextJobStagesDto'));
      expect(schemas.ContextJobStagesDto.properties.queue.enum).toContain(job.queue);
    }
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
