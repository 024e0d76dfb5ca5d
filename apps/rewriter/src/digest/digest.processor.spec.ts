import { Job, UnrecoverableError } from 'bullmq';
import { DigestJob, DigestResult } from '@app/contracts';
import { DigestProcessor } from './digest.processor';
import { DigestService } from './digest.service';

const JOB: DigestJob = { query: 'q', rendered: '<memory/>', validUris: ['viking://a'], maxBullets: 2, timeoutMs: 1000 };

describe('DigestProcessor', () => {
  const result: DigestResult = { status: 'no_relevant', digest: '', usage: { prompt_tokens: 1, completion_tokens: 1 } };
  const digest = jest.fn(async () => result);
  const processor = new DigestProcessor({ digest } as unknown as DigestService);

  beforeEach(() => digest.mockClear());

  it("hands the payload, enqueue time and the job's abort signal to the service", async () => {
    const signal = new AbortController().signal;
    const job = { id: '1', data: JOB, timestamp: 1234, opts: {}, attemptsMade: 0 } as unknown as Job<DigestJob>;
    await expect(processor.process(job, undefined, signal)).resolves.toBe(result);
    expect(digest).toHaveBeenCalledWith(JOB, 1234, signal);
  });

  it.each([
    { name: 'not an object', data: 'x' },
    { name: 'missing validUris', data: { ...JOB, validUris: undefined } },
    { name: 'zero bullets', data: { ...JOB, maxBullets: 0 } },
    { name: 'no fuse', data: { ...JOB, timeoutMs: 0 } },
  ])('malformed payload ($name) → UnrecoverableError', async ({ data }) => {
    await expect(processor.handle(data)).rejects.toBeInstanceOf(UnrecoverableError);
    expect(digest).not.toHaveBeenCalled();
  });
});
