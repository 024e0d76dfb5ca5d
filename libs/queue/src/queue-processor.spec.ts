import { UnrecoverableError } from 'bullmq';
import { getMaxListeners } from 'node:events';
import { MAX_FIND_BATCH, QueueName, SidecarJob } from '@app/contracts';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { decodeJobFailure } from './job-failure-decode';
import { FinalJobFailure } from './final-job-failure';
import { JobDeferred } from './job-deferral';
import { currentAccountId, currentJobMeta, currentRequestId, runInWorkContext } from './job-context';
import { JobRun, JOB_SIGNAL_LISTENERS, QueueProcessor } from './queue-processor';

class FakeSidecars extends QueueProcessor<QueueName.Sidecar> {
  seen: (string | undefined)[] = [];
  accounts: (string | undefined)[] = [];
  constructor(private readonly work: () => Promise<{ refreshed: number }>) {
    super(QueueName.Sidecar);
  }
  protected isPayload(d: unknown): d is SidecarJob {
    return typeof (d as SidecarJob)?.uri === 'string';
  }
  protected run() {
    this.seen.push(currentRequestId());
    this.accounts.push(currentAccountId());
    return this.work();
  }
}

const JOB: SidecarJob = { accountId: 'a', uri: 'viking://resources' };

class Busy extends Error {}

/** A durable processor that names `Busy` as a deferral of 250 ms. */
class DeferringSidecars extends FakeSidecars {
  protected override deferralOf(err: unknown): number | null {
    return err instanceof Busy ? 250 : null;
  }
}

describe('QueueProcessor (durable queue)', () => {
  it('keeps a failure retryable (a plain Error) with its code, and never leaks an unexpected text', async () => {
    const coded = await new FakeSidecars(async () => {
      throw new KernelError(KernelErrorCode.Unavailable, 'db away');
    })
      .handle(JOB)
      .catch((e: Error) => e);
    expect(coded).not.toBeInstanceOf(UnrecoverableError);
    expect((coded as Error).message).toBe('UNAVAILABLE: db away');
    const failing = new FakeSidecars(async () => {
      throw new Error('relation "nodes" does not exist');
    });
    const bug = await failing.handle(JOB).catch((e: Error) => e);
    expect(bug).not.toBeInstanceOf(UnrecoverableError);
    expect((bug as Error).message).toMatch(/^INTERNAL: sidecar failed \(error id /);
  });

  it('fails a malformed payload for good', async () => {
    const err = await new FakeSidecars(async () => ({ refreshed: 1 })).handle({ nope: 1 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect((err as Error).message).toBe('INTERNAL: malformed sidecar job payload');
  });

  it('fails a FinalJobFailure for good, with its code and message', async () => {
    const err = await new FakeSidecars(async () => {
      throw new FinalJobFailure(KernelErrorCode.Internal, 'set aside until later');
    })
      .handle(JOB)
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect((err as Error).message).toBe('INTERNAL: set aside until later');
  });

  it('puts back a job whose error its processor names a deferral, and fails any other error', async () => {
    const deferred = await new DeferringSidecars(async () => {
      throw new Busy('rows of account a are being removed');
    })
      .handle(JOB, {}, true)
      .catch((e: Error) => e);
    expect(deferred).toBeInstanceOf(JobDeferred);
    expect((deferred as JobDeferred).delayMs).toBe(250);
    expect((deferred as Error).message).toBe('rows of account a are being removed');
    const failed = await new DeferringSidecars(async () => {
      throw new KernelError(KernelErrorCode.Unavailable, 'db away');
    })
      .handle(JOB, {}, true)
      .catch((e: Error) => e);
    expect(failed).not.toBeInstanceOf(JobDeferred);
    expect((failed as Error).message).toBe('UNAVAILABLE: db away');
  });

  it('runs the work under the request id the job carries', async () => {
    const p = new FakeSidecars(async () => ({ refreshed: 1 }));
    await expect(p.handle({ ...JOB, _meta: { requestId: 'req-42' } })).resolves.toEqual({ refreshed: 1 });
    expect(p.seen).toEqual(['req-42']);
  });

  // docs/limits-and-security.md, "The embedded store's statements, account by account".
  it("runs the work as the account of the request that added the job, else as the payload's", async () => {
    const meta = runInWorkContext({ requestId: 'req-7', accountId: 'acme' }, () => currentJobMeta());
    expect(meta).toEqual({ requestId: 'req-7', accountId: 'acme' });
    const p = new FakeSidecars(async () => ({ refreshed: 1 }));
    await p.handle({ ...JOB, _meta: meta });
    await p.handle(JOB); // added by a relay: no request, no meta
    await p.handle({ uri: 'viking://resources' }); // a payload that names no account
    expect(p.accounts).toEqual(['acme', 'a', undefined]);
  });
});

/** A processor that notes how many listeners its job's signal may hold while its work runs. */
class SignalCap extends QueueProcessor<QueueName.Sidecar> {
  cap: number | null = null;
  constructor() {
    super(QueueName.Sidecar);
  }
  protected isPayload(d: unknown): d is SidecarJob {
    return typeof (d as SidecarJob)?.uri === 'string';
  }
  protected async run(_data: SidecarJob, job: JobRun) {
    this.cap = getMaxListeners(job.signal!);
    return { refreshed: 0 };
  }
}

describe('QueueProcessor (a job signal many waits share)', () => {
  it("lets a find batch's concurrent waits listen on its signal without Node's leak warning", async () => {
    const signal = new AbortController().signal;
    expect(getMaxListeners(signal)).toBe(10); // Node's default: an 11th listener prints the warning
    const processor = new SignalCap();
    await processor.handle(JOB, { signal });
    expect(processor.cap).toBe(JOB_SIGNAL_LISTENERS);
    expect(JOB_SIGNAL_LISTENERS).toBeGreaterThanOrEqual(2 * MAX_FIND_BATCH);
  });
});

describe('decodeJobFailure', () => {
  it('turns a coded failure back into its KernelError and leaves anything else alone', () => {
    const decoded = decodeJobFailure(new Error('INVALID_ARGUMENT: filter.field bad')) as KernelError;
    expect(decoded).toBeInstanceOf(KernelError);
    expect([decoded.code, decoded.message]).toEqual(['INVALID_ARGUMENT', 'filter.field bad']);
    const stalled = new Error('job stalled more than allowable limit');
    expect(decodeJobFailure(stalled)).toBe(stalled);
    expect(decodeJobFailure(new Error('NOT_A_CODE: x'))).toBeInstanceOf(Error);
    expect(decodeJobFailure(new Error('NOT_A_CODE: x'))).not.toBeInstanceOf(KernelError);
  });
});
