import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { IndexJob } from '@app/contracts';
import { IndexRunVerdict, indexRunVerdict, KernelErrorCode } from '@app/kernel';
import { FinalJobFailure } from '@app/queue';
import { OutboxRepository } from '@app/store';
import { IndexRunGate } from './index-run-gate';

/**
 * Keeps an outbox entry whose index job takes its worker down from taking down one worker after another
 * (docs/architecture.md, "A job that kills its worker"). Each run is counted in the entry as it begins and the
 * count taken back when the run ends without indexing it, so what is left counts the runs that died with their
 * worker. At `MUNINN_INDEX_CRASH_LIMIT` deaths an entry of several files is split into one entry per file; a
 * single file runs alone in its process, and once it died alone it is set aside for `MUNINN_INDEX_HOLD_MS`, then
 * run alone once more. A split or a hold fails the job for good, saying so (system/wait, a waiting write).
 */
@Injectable()
export class IndexRunGuard {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbox: OutboxRepository,
    private readonly gate: IndexRunGate,
  ) {}

  /** Runs `work` for the entry of `job` as its record of deaths says (split and hold throw, final). */
  async around<T>(job: IndexJob, work: () => Promise<T>): Promise<T> {
    // Counted once through the gate (a job waiting there when its process dies was not running), in one
    // statement on the common path. Null: the entry is gone (indexed already); the work is idempotent.
    const first = await this.gate.shared(async (): Promise<{ verdict: IndexRunVerdict; crashes: number; done?: T }> => {
      const record = await this.outbox.beginRun(job);
      const verdict = record ? indexRunVerdict(record, this.config.indexing.crashLimit) : 'run';
      if (verdict !== 'run') return { verdict, crashes: record?.crashes ?? 0 };
      return { verdict, crashes: 0, done: await this.counted(job, record !== null, false, work) };
    });
    if (first.verdict === 'run') return first.done as T;
    if (first.verdict === 'split') return this.split(job, first.crashes);
    if (first.verdict === 'hold') return this.hold(job, first.crashes);
    // Already counted as a run; counted as one alone only once it has the process to itself.
    return this.gate.alone(async () => {
      await this.outbox.beginAlone(job);
      return this.counted(job, true, true, work);
    });
  }

  private async counted<T>(job: IndexJob, recorded: boolean, alone: boolean, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      // Failed or put back, not dead. A store away now keeps the counts: one death more, at most.
      if (recorded) await this.outbox.endRun(job, alone).catch(() => undefined);
      throw err;
    }
  }

  private async split(job: IndexJob, crashes: number): Promise<never> {
    // The parts are the relay's, due after the grace: enqueued here, they could run (and the poisoned one take this
    // worker down) before BullMQ records this job's failure, which then reads as a second stall.
    const parts = await this.outbox.split(job, this.config.indexing.outboxGraceMs);
    throw new FinalJobFailure(
      KernelErrorCode.Internal,
      `indexing these ${job.uris.length} nodes took down a worker ${times(crashes)}: each is indexed by a job of its own now`,
      { operation: 'index', split: parts },
    );
  }

  private async hold(job: IndexJob, crashes: number): Promise<never> {
    const { holdMs, crashLimit } = this.config.indexing;
    // At the limit with no death alone: after the hold, one more run alone decides (a death sets it aside again).
    const until = await this.outbox.hold(job, holdMs, crashLimit);
    const heldUntil = until?.toISOString() ?? null;
    throw new FinalJobFailure(
      KernelErrorCode.Internal,
      `indexing ${job.uris[0] ?? 'this node'} took down a worker ${times(crashes)}, the last time alone: ` +
        `it is set aside until ${heldUntil ?? 'later'}, then tried once more`,
      { operation: 'index', heldUntil },
    );
  }
}

const times = (n: number) => (n === 1 ? 'once' : `${n} times`);
