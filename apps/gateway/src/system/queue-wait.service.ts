import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { QueueName } from '@app/contracts';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { JobBus } from '@app/queue';

const POLL_MS = 100;
/** The reference's names for the queues its clients read (`Embedding`, `Semantic`); the rest keep ours. */
const DISPLAY: Partial<Record<string, string>> = { [QueueName.Index]: 'Embedding', [QueueName.Sidecar]: 'Semantic' };

/** `POST /api/v1/system/wait`: waits until every queue is empty (all tenants' work, as in the reference). */
@Injectable()
export class QueueWaitService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly bus: JobBus,
  ) {}

  async waitIdle(timeoutSeconds: number | null | undefined) {
    const ms =
      timeoutSeconds === null || timeoutSeconds === undefined ? this.config.queues.writeWaitMs : timeoutSeconds * 1000;
    const deadline = Date.now() + ms;
    for (;;) {
      const depths = await this.bus.depths();
      if (Object.values(depths).every((n) => n === 0)) return report(depths);
      if (Date.now() + POLL_MS > deadline) {
        const details = { operation: 'wait', timeout: ms / 1000, depths };
        throw new KernelError(KernelErrorCode.DeadlineExceeded, `queues still busy after ${ms / 1000}s`, details);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}

interface QueueStatus {
  processed: number;
  requeue_count: number;
  error_count: number;
  errors: { message: string }[];
}

function report(depths: Record<string, number>) {
  const out: Record<string, QueueStatus> = {};
  for (const name of Object.keys(depths)) {
    out[DISPLAY[name] ?? name] = { processed: 0, requeue_count: 0, error_count: 0, errors: [] };
  }
  return out;
}
