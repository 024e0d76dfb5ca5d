import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { QueueName } from '@app/contracts';
import { Identity, KernelError, KernelErrorCode, NO_COUNTERS, queueActivity, QueueActivityReport } from '@app/kernel';
import { JobBus, QueueActivity } from '@app/queue';

const POLL_MS = 100;
const ALL_QUEUES: readonly string[] = Object.values(QueueName);
/** The reference's names for the queues its clients read (`Embedding`, `Semantic`); the rest keep ours. */
const DISPLAY: Partial<Record<string, string>> = { [QueueName.Index]: 'Embedding', [QueueName.Sidecar]: 'Semantic' };

/**
 * `POST /api/v1/system/wait`: waits until every queue is empty (all tenants' work, as in the
 * reference), then reports per queue what the deployment's workers did while it waited: the growth
 * of the counters the processor base keeps (docs/fs-and-mcp.md, "system/wait").
 */
@Injectable()
export class QueueWaitService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly bus: JobBus,
    private readonly activity: QueueActivity,
  ) {}

  /** `caller` decides which failure messages are shown: its account's, or all for the root key. */
  async waitIdle(caller: Identity, timeoutSeconds: number | null | undefined) {
    const ms =
      timeoutSeconds === null || timeoutSeconds === undefined ? this.config.queues.writeWaitMs : timeoutSeconds * 1000;
    const deadline = Date.now() + ms;
    const before = await this.activity.snapshot(ALL_QUEUES).catch(unavailable);
    for (;;) {
      const depths = await this.bus.depths();
      if (Object.values(depths).every((n) => n === 0)) return this.report(caller, depths, before);
      if (Date.now() + POLL_MS > deadline) {
        const details = { operation: 'wait', timeout: ms / 1000, depths };
        throw new KernelError(KernelErrorCode.DeadlineExceeded, `queues still busy after ${ms / 1000}s`, details);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private async report(
    caller: Identity,
    depths: Record<string, number>,
    before: Awaited<ReturnType<QueueActivity['snapshot']>>,
  ) {
    const viewer = caller.role === 'root' ? null : caller.accountId;
    const names = [...new Set([...Object.keys(depths), ...ALL_QUEUES])];
    const after = await this.activity.snapshot(names).catch(unavailable);
    const out: Record<string, QueueActivityReport> = {};
    for (const name of names) {
      const start = before[name]?.counters ?? NO_COUNTERS;
      const end = after[name];
      out[DISPLAY[name] ?? name] = queueActivity(
        start,
        end.counters,
        end.recent,
        this.config.queues.failuresKept,
        viewer,
      );
    }
    return out;
  }
}

function unavailable(err: unknown): never {
  if (err instanceof KernelError) throw err;
  const reason = err instanceof Error ? err.message : String(err);
  throw new KernelError(KernelErrorCode.Unavailable, `Queue unavailable: ${reason}`, { service: 'redis', reason });
}
