// docs/limits-and-security.md, "Large plans on worker threads": the built server (`npm start`, one process) plans a
// block whose input is over MUNINN_ASSEMBLE_THREAD_CHARS on a worker thread. Two such servers over the same
// memories, one planning every block on a thread (the bound at 1 character) and one planning every block on its
// event loop (MUNINN_ASSEMBLE_THREADS=0), answer every context request with the same block; only the first one's
// assemble jobs report the thread's hop (`plan_thread`) in their telemetry.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDist, ServingProcess, startServing } from '@app/testing';

const ROOT = 'viking://user/default/memories';
const TOPICS = ['kestrel', 'heron', 'osprey', 'merlin', 'harrier', 'plover'];

/** Thirty memories, some far past any abstract a block serves whole, each naming two of the topics. */
function memories(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < 30; i++) {
    const [a, b] = [TOPICS[i % 6], TOPICS[(i * 5 + 1) % 6]];
    const line = `Day ${i}: watched a ${a} near the ${b} nest, noted wind, light and the hour. `;
    const kind = ['events', 'entities', 'preferences'][i % 3];
    out[`${ROOT}/${kind}/note-${i}.md`] = `# ${a} and ${b}\n\n${line.repeat(1 + ((i * 7) % 40))}\n`;
  }
  return out;
}

describe('large plans on worker threads (the built server)', () => {
  const dirs: string[] = [];
  let threaded: ServingProcess;
  let onLoop: ServingProcess;

  const start = async (name: string, env: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), `muninn-plan-${name}-`));
    dirs.push(dir);
    return startServing('standalone', {
      REDIS_URL: process.env.REDIS_URL ?? '',
      MUNINN_DATA_DIR: dir,
      MUNINN_QUEUE_PREFIX: `plan-${name}-${process.pid}`,
      ...env,
    });
  };

  beforeAll(async () => {
    buildDist();
    [threaded, onLoop] = await Promise.all([
      start('thread', { MUNINN_ASSEMBLE_THREADS: '1', MUNINN_ASSEMBLE_THREAD_CHARS: '1' }),
      start('loop', { MUNINN_ASSEMBLE_THREADS: '0' }),
    ]);
    const operations = Object.entries(memories()).map(([uri, content]) => ({ uri, content, mode: 'create' }));
    for (const server of [threaded, onLoop]) {
      const w = await server.request('POST', '/api/v1/content/batch-write', {
        body: { root_uri: ROOT, operations, wait: true, timeout: 60 },
      });
      expect(w.status).toBe(200);
    }
  }, 240_000);

  afterAll(async () => {
    await Promise.all([threaded?.proc.kill(), onLoop?.proc.kill()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['kestrel nest', 800, false],
    ['heron and osprey wind', 3200, true],
    ['plover light hour', 16000, false],
  ])('"%s" at %i tokens (explain %s): the same block from the thread and from the loop', async (q, tokens, explain) => {
    const body = { query: q, mode: 'context', max_tokens: tokens, explain, telemetry: true };
    const [a, b] = await Promise.all(
      [threaded, onLoop].map((s) => s.request('POST', '/api/v1/search/search', { body })),
    );
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.result.entries.length).toBeGreaterThan(0);
    expect(a.body.result.rendered).toBe(b.body.result.rendered);
    expect(a.body.result.entries).toEqual(b.body.result.entries);
    expect(a.body.result.explain).toEqual(b.body.result.explain);
    const assembleStages = (r: typeof a) =>
      (r.body.telemetry.summary.jobs as { queue: string; stages_ms: Record<string, number> }[]).find(
        (j) => j.queue === 'assemble',
      )!.stages_ms;
    // The thread's server planned on a thread (its hop timed), the other on its loop; both timed the plan itself.
    expect(assembleStages(a)).toEqual(
      expect.objectContaining({ plan: expect.any(Number), plan_thread: expect.any(Number) }),
    );
    expect(assembleStages(b)).toEqual(expect.objectContaining({ plan: expect.any(Number) }));
    expect(assembleStages(b).plan_thread).toBeUndefined();
  });
});
