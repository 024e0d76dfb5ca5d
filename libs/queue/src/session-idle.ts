import { QueueName, SessionIdleJob } from '@app/contracts';
import { JobBus } from './job-bus.port';
import { sessionIdleKey } from './job-options';

/**
 * Schedules a session's idle check in `delayMs` (docs/sessions.md "Automatic commit"): at most one waits
 * per session (later schedules coalesce into it); the check reschedules itself while the session is not
 * idle. Used after a message write and after an import brought in a session with live messages.
 */
export function scheduleSessionIdle(bus: JobBus, job: SessionIdleJob, delayMs: number): Promise<void> {
  return bus.enqueue(QueueName.SessionIdle, job, { delayMs, coalesceKey: sessionIdleKey(job) });
}
