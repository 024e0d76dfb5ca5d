import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '@app/config';
import { BlockRequest, planBlock, StageTimer } from '@app/kernel';
import { candidate } from '@app/kernel/testing/candidate';
import { runInWorkContext } from '@app/queue';
import { eventually } from '@app/testing';
import { PlanThreads } from './plan-threads';

// docs/limits-and-security.md, "Large plans on worker threads": which plans go to a thread (real piscina threads
// running small thread bodies written here, since the compiled body exists only in the build; the built server's
// own is driven by test/e2e/plan-threads.e2e-spec.ts), what a failed or withdrawn thread plan does.

const dir = mkdtempSync(join(tmpdir(), 'plan-threads-'));
const body = (name: string, source: string) => {
  const file = join(dir, `${name}.js`);
  writeFileSync(file, source);
  return file;
};
/** A thread body that says it planned, naming what it was given. */
const ANSWERS = body(
  'answers',
  `module.exports = ({ req, bodies, unread }) => ({
    planned: { block: { entries: [], rendered: 'thread:' + req.candidates.length + ':' + bodies.length + ':' + unread.join(','), plan: {} }, asked: true },
    stages: { plan: 5, render: 1 },
  });`,
);
const BROKEN = body('broken', `module.exports = () => { throw new Error('boom'); };`);
/** A thread body that cannot load: its thread fails as it starts, before any plan is sent to it. */
const UNLOADABLE = body('unloadable', `throw new Error('cannot load');`);
/** Holds its thread for 3 s. */
const SLOW = body(
  'slow',
  `module.exports = () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000); return null; };`,
);

/** Holds its thread 150 ms and answers the query it planned for. */
const NAMED = body(
  'named',
  `module.exports = ({ req }) => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150);
    return { planned: { block: { entries: [], rendered: req.query, plan: {} }, asked: true }, stages: {} };
  };`,
);

const config = (threads: number) =>
  ({ queues: { assembleThreads: threads, assembleThreadChars: 200 } }) as unknown as AppConfig;
const U = 'viking://user/ann/memories/events';
/** A request whose abstracts add up to `chars` characters over two candidates. */
const request = (chars: number): BlockRequest => ({
  candidates: [0, 1].map((i) =>
    candidate(`${U}/m${i}.md`, 'events', { abstract: `${i} kestrel `.padEnd(chars / 2, 'x'), score: 0.9 - i / 10 }),
  ),
  maxTokens: 1600,
  detail: null,
  query: 'kestrel',
});
const here = (req: BlockRequest) => planBlock(req, new Map(), [], new StageTimer(() => 0));

describe('PlanThreads', () => {
  const made: PlanThreads[] = [];
  const threads = (n: number, file: string, retryMs?: number) => {
    const t = new PlanThreads(config(n), file, retryMs);
    made.push(t);
    return t;
  };

  afterAll(async () => {
    await Promise.all(made.map((t) => t.onModuleDestroy()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('plans on a thread from MUNINN_ASSEMBLE_THREAD_CHARS of input, its stages and hop on the timer', async () => {
    const timer = new StageTimer(() => performance.now());
    const planned = await threads(1, ANSWERS).planner(timer, 'acct')(request(200), new Map([['b', 'body']]), ['s1']);
    expect([planned.block.rendered, planned.asked]).toEqual(['thread:2:1:s1', true]);
    const stages = timer.timings();
    expect([stages.plan, stages.render]).toEqual([5, 1]);
    expect(stages.plan_thread).toBeGreaterThanOrEqual(0);
  });

  it('plans a smaller input on the loop, and every input without threads or without a thread body', async () => {
    for (const [n, file, chars] of [
      [1, ANSWERS, 180],
      [0, ANSWERS, 4000],
      [1, join(dir, 'absent.js'), 4000],
    ] as const) {
      const timer = new StageTimer(() => performance.now());
      const planned = await threads(n, file).planner(timer, 'acct')(request(chars), new Map(), []);
      expect(planned).toEqual(here(request(chars)));
      expect(planned.block.rendered).toContain(`${U}/m0.md`);
      expect(timer.timings().plan_thread).toBeUndefined();
    }
  });

  it('plans on the loop when the thread fails', async () => {
    const planned = await threads(1, BROKEN).planner(new StageTimer(() => 0), 'acct')(request(400), new Map(), []);
    expect(planned).toEqual(here(request(400)));
  });

  it('plans on the loop from then on when a thread cannot load its body, the plans already waiting too', async () => {
    // The pool's thread starts at once and fails loading its body. piscina reports that as the pool's 'error'
    // event (unheard, an uncaught exception: this suite failed, and the assembler ended) and starts no other
    // thread: a plan sent to it waited for one for good.
    const early = threads(1, UNLOADABLE).planner(new StageTimer(() => 0), 'acct')(request(400), new Map(), []);
    expect(await early).toEqual(here(request(400)));
    const failing = threads(1, UNLOADABLE);
    await new Promise((r) => setTimeout(r, 500));
    const planned = await failing.planner(new StageTimer(() => 0), 'acct')(request(400), new Map(), []);
    expect(planned).toEqual(here(request(400)));
  });

  it('tries threads again after one could not load its body, each try later while it fails', async () => {
    // A thread that could not start for a passing reason (memory, file handles) no longer leaves the process's plans
    // on the loop until it restarts. The body notes each load; it cannot load until it is fixed.
    const loads = join(dir, 'flaky-loads');
    writeFileSync(loads, '');
    const file = body(
      'flaky',
      `require('node:fs').appendFileSync(${JSON.stringify(loads)}, Date.now() + ' ' + require('node:worker_threads').threadId + '\\n'); throw new Error('not yet');`,
    );
    const pool = threads(1, file, 200);
    const plan = () => pool.planner(new StageTimer(() => 0), 'acct')(request(400), new Map(), []);
    expect(await plan()).toEqual(here(request(400)));
    // Tries 200, 400, 800 ms apart: at most four loads in 1.5 s (a fixed 200 ms would make seven), and at least two.
    await new Promise((r) => setTimeout(r, 1500));
    // A line per load, naming its thread (piscina loads a body twice in one thread: require, then import).
    const tries = new Set(
      readFileSync(loads, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[1]),
    ).size;
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(tries).toBeLessThanOrEqual(4);
    expect(await plan()).toEqual(here(request(400)));
    writeFileSync(file, readFileSync(ANSWERS));
    const fixed = await eventually(async () => (await plan()).block.rendered === 'thread:2:0:', 10_000);
    expect(fixed).toBe(true);
  });

  it('takes the waiting plans account by account, not behind everything one tenant sent first', async () => {
    const pool = threads(1, NAMED);
    const done: string[] = [];
    const plan = (account: string, name: string) =>
      pool
        .planner(new StageTimer(() => 0), account)({ ...request(400), query: name }, new Map(), [])
        .then((p) => done.push(p.block.rendered));
    // One tenant sends four large plans, then another sends one: it waits for the plan running and the one of
    // the first tenant's already waiting, not for all of them (first in, first out: fifth, 450 ms later).
    const all = ['a1', 'a2', 'a3', 'a4'].map((n) => plan('a', n));
    all.push(plan('b', 'b1'));
    await Promise.all(all);
    expect(done).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  });

  it("stops waiting for a thread's plan once its job is withdrawn", async () => {
    const slow = threads(1, SLOW);
    const withdrawn = new AbortController();
    const plan = runInWorkContext({ requestId: 'r', abandoned: withdrawn.signal }, () =>
      slow.planner(new StageTimer(() => 0), 'acct')(request(400), new Map(), []),
    );
    setTimeout(() => withdrawn.abort(), 50);
    await expect(plan).rejects.toThrow(/abort/i);
  });
});
