import { Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { APP_CONFIG, AppConfig } from '@app/config';
import { BlockPlanner, BlockRequest, carriedBodies, planHere, StageTimer } from '@app/kernel';
import { currentAbandonSignal } from '@app/queue';
import { AccountFairQueue, forAccount } from './account-fair-queue';
import type { PlanAnswer, PlanTask } from './plan.worker';

/** The compiled thread body beside this file; absent when the app runs from its TypeScript sources (jest). */
const WORKER = join(__dirname, 'plan.worker.js');
/** Another thread body (a spec's); the compiled one when not provided. */
export const PLAN_THREAD_BODY = Symbol('PLAN_THREAD_BODY');
/** How long after a thread failed to start a new pool is first tried (a spec's shorter one). */
export const PLAN_THREAD_RETRY_MS = Symbol('PLAN_THREAD_RETRY_MS');
const FIRST_RETRY_MS = 30_000;
const LAST_RETRY_MS = 3_600_000;

/**
 * Worker threads that plan large blocks (docs/limits-and-security.md, "Large plans on worker threads"). A plan is
 * synchronous work linear in its input: the largest valid request's plan held the assembler's event loop for
 * ~150 ms (~0.6 s on a 60 MB tenant), and with it every other tenant's assemble jobs and, in the one-process
 * deployment, every request. A plan over `MUNINN_ASSEMBLE_THREAD_CHARS` of abstracts and bodies runs on one of
 * `MUNINN_ASSEMBLE_THREADS` threads instead (its input copied there, its block copied back); a smaller one, where
 * the copy and the hop would cost more than they free, runs on the loop. Running from the TypeScript sources
 * (the in-process test apps) there is no compiled thread body, and every plan runs on the loop.
 */
@Injectable()
export class PlanThreads implements OnModuleDestroy {
  private readonly logger = new Logger(PlanThreads.name);
  private pool: Piscina<PlanTask, PlanAnswer> | null;
  private readonly minChars: number;
  private readonly threads: number;
  private nextRetryMs: number;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() @Inject(PLAN_THREAD_BODY) private readonly body: string = WORKER,
    @Optional() @Inject(PLAN_THREAD_RETRY_MS) private readonly retryMs: number = FIRST_RETRY_MS,
  ) {
    const { assembleThreads, assembleThreadChars } = config.queues;
    this.minChars = assembleThreadChars;
    this.threads = assembleThreads;
    this.nextRetryMs = retryMs;
    const built = existsSync(body);
    this.pool = assembleThreads > 0 && built ? this.start() : null;
    if (assembleThreads > 0 && !built) {
      this.logger.debug('no compiled plan thread body (running from sources): plans on the loop');
    }
  }

  private start(): Piscina<PlanTask, PlanAnswer> {
    const pool = new Piscina<PlanTask, PlanAnswer>({
      filename: this.body,
      minThreads: 1,
      maxThreads: this.threads,
      taskQueue: new AccountFairQueue(),
      // Without it a plan taken off the line while every thread was busy went back to its tail (piscina's
      // default), and a tenant's plans came out of order.
      stricterFIFO: true,
    });
    // A thread that fails with no plan on it fails as it starts: its body cannot load. piscina reports that as the
    // pool's 'error' event (unheard: an uncaught exception that ended the assembler), starts no other thread, and
    // keeps the plans sent meanwhile waiting for one until their jobs were withdrawn. Plans are made on the loop
    // until a new pool is tried, `retryMs` later, doubling up to an hour while each try fails the same way: a
    // thread that could not start for a passing reason (memory, file handles) does not leave the process without
    // threads until it restarts. Those waiting are answered on the loop (destroy rejects them).
    pool.on('error', (err: Error) => {
      if (this.pool !== pool) return;
      this.pool = null;
      void pool.destroy();
      if (this.closed) return;
      const delay = this.nextRetryMs;
      this.nextRetryMs = Math.min(delay * 2, LAST_RETRY_MS);
      this.logger.error(
        `a plan thread failed as it started (${err.message}): plans run on the event loop, threads tried again in ${Math.round(delay / 1000)} s`,
      );
      this.retry = setTimeout(() => {
        this.retry = null;
        this.pool = this.start();
      }, delay);
      this.retry.unref();
    });
    return pool;
  }

  /**
   * A planner for one assemble job: on a thread when its input is large, else here; either way its `plan` and
   * `render` stages go to `timer`, and a thread's hop (waiting for a thread, the copies) to `plan_thread`. A plan
   * whose job is withdrawn (its request's client gone, or its deadline past) leaves the threads' line, or, running,
   * has its thread stopped (and a new one started): nobody waits for that block. A thread that fails otherwise (it
   * could not load, or died) costs the plan its thread, not its block: it is planned here (logged).
   */
  planner(timer: StageTimer, account: string): BlockPlanner {
    const here = planHere(timer);
    if (!this.pool) return here;
    return async (req, contents, unread) => {
      const pool = this.pool;
      if (!pool || planChars(req, contents) < this.minChars) return here(req, contents, unread);
      const started = performance.now();
      const task = forAccount<PlanTask>({ req, bodies: bodiesOf(req, contents), unread: [...unread] }, account);
      const signal = currentAbandonSignal();
      let answer: PlanAnswer;
      try {
        answer = await pool.run(task, { signal: signal ?? null });
      } catch (err) {
        if (signal?.aborted) throw err;
        this.logger.warn(`a plan thread failed, planning on the event loop: ${(err as Error).message ?? err}`);
        return here(req, contents, unread);
      }
      // A thread answered: the pool has started, and a later failure to start waits the first delay again.
      this.nextRetryMs = this.retryMs;
      const { planned, stages } = answer;
      let inside = 0;
      for (const [stage, ms] of Object.entries(stages)) {
        timer.add(stage, ms);
        inside += ms;
      }
      timer.add('plan_thread', performance.now() - started - inside);
      return planned;
    };
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.pool?.destroy();
  }
}

/**
 * The bodies to send a thread, in their order, a body the search carried (the candidate's abstract, in the request
 * already) as `null`: 6,000 carried abstracts of 700 characters took 26 ms of the loop to copy to a thread with the
 * bodies sent too, 18 ms without.
 */
function bodiesOf(req: BlockRequest, contents: ReadonlyMap<string, string>): [string, string | null][] {
  const carried = carriedBodies(req);
  return [...contents].map(([uri, text]) => [uri, carried.get(uri) === text ? null : text]);
}

/** A plan's input size: its candidates' abstracts and the bodies it works over, in characters. */
function planChars(req: BlockRequest, contents: ReadonlyMap<string, string>): number {
  let chars = 0;
  for (const c of req.candidates) chars += c.abstract.length;
  for (const s of req.seen ?? []) chars += s.candidate.abstract.length;
  for (const text of contents.values()) chars += text.length;
  return chars;
}
