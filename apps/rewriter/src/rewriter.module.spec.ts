import { Test } from '@nestjs/testing';
import { loadConfig } from '@app/config';
import { QueueName } from '@app/contracts';
import { JobBus } from '@app/queue';
import { FakeLlmServer, startFakeLlmServer } from '@app/testing';
import { RewriterModule } from './rewriter.module';

const A = 'viking://user/u/memories/events/a.md';

describe('RewriterModule with the in-process transport (no Redis)', () => {
  let fake: FakeLlmServer;

  beforeAll(async () => {
    fake = await startFakeLlmServer();
  });
  afterAll(() => fake.close());

  it('registers the digest and expand consumers on the bus', async () => {
    const config = loadConfig({
      MUNINN_TRANSPORT: 'inprocess',
      LLM_BASE_URL: fake.url,
      LLM_MODEL: 'm',
      LOG_LEVEL: 'error',
    });
    const ref = await Test.createTestingModule({ imports: [RewriterModule.forRoot(config)] }).compile();
    await ref.init();
    const bus = ref.get(JobBus);
    fake.enqueue({ text: `- fact source: ${A}`, usage: { prompt_tokens: 5, completion_tokens: 2 } }, '["other query"]');
    await expect(
      bus.call(
        QueueName.Digest,
        { query: 'q', rendered: 'r', validUris: [A], maxBullets: 3, timeoutMs: 2000 },
        { timeoutMs: 2000 },
      ),
    ).resolves.toEqual({
      status: 'ok',
      digest: `Memory digest:\n- fact source: ${A}`,
      usage: { prompt_tokens: 5, completion_tokens: 2 },
    });
    await expect(
      bus.call(
        QueueName.Expand,
        { query: 'q', latestArchiveOverview: '', recentMessages: [], timeoutMs: 2000 },
        { timeoutMs: 2000 },
      ),
    ).resolves.toMatchObject({ queries: ['other query'] });
    await ref.close();
  });
});
