// docs/architecture.md, "Stage timings": a content write's per-stage times (gateway commit and enqueue,
// the awaited index job's stages) as the Prometheus histogram muninn_write_stage_duration_seconds; they
// never reach the write's answer. Dev mode: ROOT, default/default.
import { startTestApp, storeModes, TestApp } from '@app/testing';

const DIR = 'viking://resources/stages';
const GATEWAY = ['commit', 'enqueue', 'total'];
const JOB = ['queue_wait', 'run', 'read', 'text', 'embed', 'sql', 'sidecar', 'outbox', 'return', 'wall'];

describe.each(storeModes())('write stage timings (store: %s)', (store) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ store });
  }, 120000);
  afterAll(() => app.close());

  const counts = async () => {
    const text = (await app.request('GET', '/metrics')).text;
    const out = new Map<string, number>();
    for (const m of text.matchAll(/^muninn_write_stage_duration_seconds_count\{stage="([^"]+)"\} (\d+)$/gm))
      out.set(m[1], Number(m[2]));
    return out;
  };

  it('records the gateway stages and the awaited index job stages of a write and a batch write', async () => {
    const before = await counts();
    const one = await app.request('POST', '/api/v1/content/write', {
      body: { uri: `${DIR}/one.md`, content: 'The okapi eats leaves.', mode: 'create', wait: true },
    });
    expect(one.status).toBe(200);
    expect(one.body.result.vector_status).toBe('complete');
    const many = await app.request('POST', '/api/v1/content/batch-write', {
      body: {
        root_uri: DIR,
        wait: true,
        operations: [
          { uri: `${DIR}/two.md`, content: 'The tapir swims.', mode: 'create' },
          { uri: `${DIR}/three.md`, content: 'The heron waits.', mode: 'create' },
        ],
      },
    });
    expect(many.status).toBe(200);
    // The worker's figures stay off the wire.
    expect(one.text).not.toMatch(/"stages(_ms)?"/);
    expect(many.text).not.toMatch(/"stages(_ms)?"/);
    const after = await counts();
    const grew = (stage: string) => (after.get(stage) ?? 0) - (before.get(stage) ?? 0);
    for (const stage of [...GATEWAY, ...JOB.map((s) => `index_${s}`)]) expect([stage, grew(stage)]).toEqual([stage, 2]);
    // Each job claimed (or coalesced) its directory's summary refresh.
    expect(grew('index_sidecar_claim')).toBe(2);
  });

  it('records a write that does not wait without any index job stage', async () => {
    const before = await counts();
    const r = await app.request('POST', '/api/v1/content/write', {
      body: { uri: `${DIR}/later.md`, content: 'Written, indexed later.', mode: 'create', wait: false },
    });
    expect(r.status).toBe(200);
    const after = await counts();
    const grew = (stage: string) => (after.get(stage) ?? 0) - (before.get(stage) ?? 0);
    expect([grew('commit'), grew('enqueue'), grew('total'), grew('index_wall')]).toEqual([1, 1, 1, 0]);
  });
});
