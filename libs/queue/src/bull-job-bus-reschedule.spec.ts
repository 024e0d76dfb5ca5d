import { Queue } from 'bullmq';
import { QueueName, SessionIdleJob } from '@app/contracts';
import { BullJobBus } from './bull-job-bus';
import { redisOptions } from './redis-connection';
import { scheduleSessionIdle } from './session-idle';

/**
 * A session's check is one delayed job per session, moved to the newest due time by each schedule
 * (docs/sessions.md, "Automatic commit"): BullMQ's deduplication with `reschedule`, beside `keepLastIfActive`,
 * on real Redis. Without it the idle relay's request for a lost check now was dropped into a check waiting a day.
 */
describe('scheduleSessionIdle moves the waiting check (real Redis)', () => {
  const prefix = `reschedule-spec-${process.pid}-${Date.now()}`;
  let queue: Queue;
  let bus: BullJobBus;
  const job: SessionIdleJob = { accountId: 'acct', userId: 'ann', sessionId: 's1' };

  beforeAll(() => {
    queue = new Queue(QueueName.SessionIdle, { connection: redisOptions(process.env.REDIS_URL as string), prefix });
    bus = new BullJobBus(new Map([[QueueName.SessionIdle, queue]]), () => {
      throw new Error('no events in this spec');
    });
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('keeps one job per session and moves it to the time of each schedule, sooner or later', async () => {
    const dueIn = async () => {
      const jobs = await queue.getJobs(['delayed', 'waiting']);
      expect(jobs).toHaveLength(1);
      return jobs[0]!.timestamp + (jobs[0]!.delay ?? 0) - Date.now();
    };
    await scheduleSessionIdle(bus, job, 86_400_000);
    expect(await dueIn()).toBeGreaterThan(86_000_000);
    await scheduleSessionIdle(bus, job, 60_000);
    const sooner = await dueIn();
    expect(sooner).toBeGreaterThan(50_000);
    expect(sooner).toBeLessThanOrEqual(60_000);
    await scheduleSessionIdle(bus, job, 120_000);
    expect(await dueIn()).toBeGreaterThan(110_000);
    await scheduleSessionIdle(bus, job, 0);
    expect(await dueIn()).toBeLessThanOrEqual(0);
  });
});
