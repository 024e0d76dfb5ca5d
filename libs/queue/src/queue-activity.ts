import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import {
  encodeQueueFailure,
  NO_COUNTERS,
  parseQueueCounters,
  parseQueueFailure,
  QueueCounters,
  QueueFailure,
} from '@app/kernel';

/** The outcome of one job attempt as `system/wait` counts it. */
export type JobOutcome = 'processed' | 'retried' | 'failed';

/** A queue's counters and its recorded failures (newest first), read together. */
export interface QueueActivitySnapshot {
  counters: QueueCounters;
  recent: QueueFailure[];
}

/**
 * Per-queue counts of what the workers did (docs/fs-and-mcp.md, "system/wait"): the processor base
 * records every job's outcome once, the gateway snapshots them. In Redis with the BullMQ transport
 * (gateway and workers are separate processes), in memory with the in-process one.
 */
export abstract class QueueActivity {
  /**
   * Records one attempt's outcome, never blocking or failing the job: a storage error is logged once
   * and otherwise ignored. `failure`: the coded message of a final failure and the job's account
   * (null when its payload names none).
   */
  abstract record(queue: string, outcome: JobOutcome, failure?: FailureNote): void;
  /** Each queue's counters and recorded failures, atomically per queue. */
  abstract snapshot(queues: readonly string[]): Promise<Record<string, QueueActivitySnapshot>>;
}

/** What is kept of a final failure. */
export interface FailureNote {
  message: string;
  account: string | null;
}

/** Bounds of the failure list (libs/config `queues.failuresKept` / `failureMaxChars`). */
export interface FailureBounds {
  kept: number;
  maxChars: number;
}

/**
 * Keys: `<prefix>:activity:<queue>` (a hash: processed, retried, failed) and
 * `<prefix>:activity:<queue>:failures` (a list of `{m, t}` JSON, newest first, capped). No queue is
 * named `activity`, so these never meet BullMQ's own `<prefix>:<queue>:…` keys.
 */
export class RedisQueueActivity extends QueueActivity {
  private readonly log = new Logger('QueueActivity');
  private failing = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly bounds: FailureBounds,
  ) {
    super();
  }

  record(queue: string, outcome: JobOutcome, failure?: FailureNote): void {
    const key = activityKey(this.prefix, queue);
    const tx = this.redis.multi().hincrby(key, outcome, 1);
    if (outcome === 'failed') {
      const entry = encodeFailure(failure, this.bounds);
      tx.lpush(`${key}:failures`, entry).ltrim(`${key}:failures`, 0, this.bounds.kept - 1);
    }
    tx.exec().then(
      () => {
        this.failing = false;
      },
      (err: unknown) => {
        // One line per outage, not per job: the job's own outcome is unaffected.
        if (this.failing) return;
        this.failing = true;
        this.log.warn(`queue activity not recorded (${err instanceof Error ? err.message : String(err)})`);
      },
    );
  }

  async snapshot(queues: readonly string[]): Promise<Record<string, QueueActivitySnapshot>> {
    const tx = this.redis.multi();
    for (const q of queues) {
      const key = activityKey(this.prefix, q);
      tx.hgetall(key).lrange(`${key}:failures`, 0, this.bounds.kept - 1);
    }
    const replies = (await tx.exec()) ?? [];
    const out: Record<string, QueueActivitySnapshot> = {};
    queues.forEach((q, i) => {
      const [hErr, hash] = replies[2 * i] ?? [null, null];
      const [lErr, list] = replies[2 * i + 1] ?? [null, null];
      if (hErr || lErr) throw hErr ?? lErr;
      out[q] = {
        counters: parseQueueCounters(hash as Record<string, string> | null),
        recent: ((list as string[] | null) ?? []).map(parseQueueFailure),
      };
    });
    return out;
  }
}

/** The in-process transport's counts: one process, so plain memory behind the same interface. */
export class InMemoryQueueActivity extends QueueActivity {
  private readonly counters = new Map<string, QueueCounters>();
  private readonly failures = new Map<string, QueueFailure[]>();

  constructor(private readonly bounds: FailureBounds) {
    super();
  }

  record(queue: string, outcome: JobOutcome, failure?: FailureNote): void {
    const c = { ...(this.counters.get(queue) ?? NO_COUNTERS) };
    c[outcome]++;
    this.counters.set(queue, c);
    if (outcome !== 'failed') return;
    const list = this.failures.get(queue) ?? [];
    list.unshift(parseQueueFailure(encodeFailure(failure, this.bounds)));
    list.length = Math.min(list.length, this.bounds.kept);
    this.failures.set(queue, list);
  }

  async snapshot(queues: readonly string[]): Promise<Record<string, QueueActivitySnapshot>> {
    return Object.fromEntries(
      queues.map((q) => [
        q,
        { counters: { ...(this.counters.get(q) ?? NO_COUNTERS) }, recent: [...(this.failures.get(q) ?? [])] },
      ]),
    );
  }
}

function encodeFailure(failure: FailureNote | undefined, bounds: FailureBounds): string {
  return encodeQueueFailure(failure?.message ?? '', Date.now(), bounds.maxChars, failure?.account ?? null);
}

export function activityKey(prefix: string, queue: string): string {
  return `${prefix}:activity:${queue}`;
}
