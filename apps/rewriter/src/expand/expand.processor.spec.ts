import { Job, UnrecoverableError } from 'bullmq';
import { ExpandJob, parseJobFailure } from '@app/contracts';
import { LlmError } from '@app/llm';
import { ExpandProcessor } from './expand.processor';
import { ExpandService } from './expand.service';

const JOB: ExpandJob = {
  query: 'q',
  latestArchiveOverview: '',
  recentMessages: [{ role: 'user', content: 'hi' }],
  timeoutMs: 1000,
};

describe('ExpandProcessor', () => {
  const expand = jest.fn();
  const processor = new ExpandProcessor({ expand } as unknown as ExpandService);

  beforeEach(() => expand.mockReset());

  const job = { id: '1', data: JOB, timestamp: 99, opts: {}, attemptsMade: 0 } as unknown as Job<ExpandJob>;

  it("hands the payload, enqueue time and the job's abort signal to the service", async () => {
    expand.mockResolvedValue({ queries: ['a'], usage: null });
    const signal = new AbortController().signal;
    await expect(processor.process(job, undefined, signal)).resolves.toEqual({ queries: ['a'], usage: null });
    expect(expand).toHaveBeenCalledWith(JOB, 99, signal);
  });

  it('fails a job withdrawn while it ran as withdrawn (DEADLINE_EXCEEDED), whatever the call failed with', async () => {
    const withdrawal = new AbortController();
    expand.mockImplementation(
      (_j: unknown, _t: unknown, signal: AbortSignal) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new LlmError('timeout', 'LLM call aborted'))),
        ),
    );
    const run = processor.process(job, undefined, withdrawal.signal).catch((e: unknown) => e);
    withdrawal.abort('withdrawn by its caller');
    const err = (await run) as Error;
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect(parseJobFailure(err.message)).toEqual({
      code: 'DEADLINE_EXCEEDED',
      message: 'expand job withdrawn: its caller stopped waiting',
    });
  });

  it('rejects a malformed payload without retry', async () => {
    await expect(processor.handle({ ...JOB, recentMessages: [{ role: 'user' }] })).rejects.toBeInstanceOf(
      UnrecoverableError,
    );
    expect(expand).not.toHaveBeenCalled();
  });

  it.each([
    { kind: 'timeout' as const, code: 'DEADLINE_EXCEEDED' },
    { kind: 'http' as const, code: 'UNAVAILABLE' },
    { kind: 'malformed' as const, code: 'UNAVAILABLE' },
  ])('a planner $kind fails the job for good with code $code', async ({ kind, code }) => {
    expand.mockRejectedValue(new LlmError(kind, 'boom'));
    const err = (await processor.handle(JOB).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect(parseJobFailure(err.message)?.code).toBe(code);
  });

  it('reports an unexpected error as INTERNAL with an error id, never its text', async () => {
    expand.mockRejectedValue(new TypeError('secret detail'));
    const err = (await processor.handle(JOB).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect(err.message).toMatch(/^INTERNAL: expand failed \(error id [0-9a-f-]{36}\)$/);
  });

  it('drops a job whose request deadline has passed, without calling the service', async () => {
    const late = { ...JOB, _meta: { deadlineAt: Date.now() - 1 } };
    const err = (await processor.handle(late).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect(parseJobFailure(err.message)?.code).toBe('DEADLINE_EXCEEDED');
    expect(expand).not.toHaveBeenCalled();
  });

  it('runs a job within its deadline, handing the service the payload without its meta', async () => {
    expand.mockResolvedValue({ queries: [], usage: null });
    await processor.handle({ ...JOB, _meta: { deadlineAt: Date.now() + 60_000, requestId: 'r1' } });
    expect(expand).toHaveBeenCalledWith(JOB, undefined, undefined);
  });
});
