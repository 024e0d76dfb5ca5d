import { Processor } from '@nestjs/bullmq';
import { Job, UnrecoverableError } from 'bullmq';
import { QueueName, SessionIdleJob } from '@app/contracts';
import { ConsumerHost, DURABLE_WORKER_OPTIONS, hasRetryLeft } from '@app/queue';
import { IdleCommitService } from './idle-commit.service';

/** Consumes `session-idle` jobs; bad payloads fail without retry. */
@Processor(QueueName.SessionIdle, DURABLE_WORKER_OPTIONS)
export class IdleCommitProcessor extends ConsumerHost {
  constructor(private readonly service: IdleCommitService) {
    super();
  }

  process(job: Job<SessionIdleJob>) {
    return this.attempt(job.data, hasRetryLeft(job), job.id);
  }

  /** The in-process bus's entry: one attempt, not retried. */
  handle(raw: unknown) {
    return this.attempt(raw);
  }

  private attempt(raw: unknown, retryable = false, jobId?: string) {
    return this.counted(QueueName.SessionIdle, raw, retryable, () =>
      this.inJobContext(QueueName.SessionIdle, raw, jobId, async (data) => {
        const j = data as SessionIdleJob;
        if (!j || typeof j.accountId !== 'string' || typeof j.userId !== 'string' || typeof j.sessionId !== 'string') {
          throw new UnrecoverableError(`malformed session-idle job payload: ${JSON.stringify(data)?.slice(0, 200)}`);
        }
        return this.service.run(j);
      }),
    );
  }
}
