import { QueueName } from '@app/contracts';
import { EXTRACT_BACKOFF, extractBackoff, jobOptions } from './job-options';

describe('the extract queue backoff', () => {
  it('is the named strategy, with six attempts', () => {
    expect(jobOptions(QueueName.Extract)).toMatchObject({ attempts: 6, backoff: { type: EXTRACT_BACKOFF } });
  });

  it('waits what a provider failure asked for, whatever the attempt', () => {
    const asked = Object.assign(new Error('HTTP 429'), { retryDelayMs: 7_500 });
    expect(extractBackoff(1, EXTRACT_BACKOFF, asked)).toBe(7_500);
    expect(extractBackoff(5, EXTRACT_BACKOFF, asked)).toBe(7_500);
  });

  it('doubles from 1 s for any other failure', () => {
    expect([1, 2, 3, 4, 5].map((n) => extractBackoff(n, EXTRACT_BACKOFF, new Error('store away')))).toEqual([
      1000, 2000, 4000, 8000, 16000,
    ]);
    const odd = Object.assign(new Error('x'), { retryDelayMs: 'soon' });
    expect(extractBackoff(2, EXTRACT_BACKOFF, odd)).toBe(2000);
  });
});
