import { QueueName, SessionIdleJob } from '@app/contracts';
import { JobBus } from './job-bus.port';
import { sessionIdleKey } from './job-options';

/**
 * Schedules a session's check in `delayMs` (docs/sessions.md "Automatic commit"): at most one waits per session,
 * and a later schedule moves the one waiting to its own time, the session's newest due time (its idle time after
 * its last message, or a throttled threshold commit's), or now when the idle relay asks for a lost check. The check
 * reschedules itself while nothing is due. Used after a message write, after an import brought in a session with
 * live messages, and by the idle relay.
 */
export function scheduleSessionIdle(bus: JobBus, job: SessionIdleJob, delayMs: number): Promise<void> {
  return bus.enqueue(QueueName.SessionIdle, job, { delayMs, coalesceKey: sessionIdleKey(job), reschedule: true });
}
