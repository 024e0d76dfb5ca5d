import { ExpandJob } from '@app/contracts';
import { LlmClient, LlmError } from '@app/llm';
import { FakeLlmServer, startFakeLlmServer } from '@app/testing';
import { ExpandService } from './expand.service';

const job = (over: Partial<ExpandJob> = {}): ExpandJob => ({
  query: 'how do I run it?',
  latestArchiveOverview: 'We set up the muninn monorepo with NestJS workers.',
  recentMessages: Array.from({ length: 7 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `message ${i}`,
  })),
  timeoutMs: 2000,
  ...over,
});

describe('ExpandService (real HTTP to a fake LLM)', () => {
  let fake: FakeLlmServer;
  let service: ExpandService;

  beforeAll(async () => {
    fake = await startFakeLlmServer();
    service = new ExpandService(
      new LlmClient({ baseUrl: fake.url, apiKey: null, model: 'chat', plannerModel: 'planner' }),
    );
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('asks the planner with the overview, the last 5 messages and the query; returns raw queries and usage', async () => {
    fake.enqueue({
      text: '{"queries": ["start the rewriter worker", "npm run start:rewriter", "third"]}',
      usage: { prompt_tokens: 90, completion_tokens: 12 },
    });
    const out = await service.expand(job());
    expect(out).toEqual({
      queries: ['start the rewriter worker', 'npm run start:rewriter', 'third'],
      usage: { prompt_tokens: 90, completion_tokens: 12 },
    });
    const [req] = fake.requests;
    expect(req.model).toBe('planner');
    const user = req.messages[1].content;
    expect(user).toContain('We set up the muninn monorepo');
    expect(user).toContain('how do I run it?');
    expect(user).not.toContain('message 1\n');
    for (const i of [2, 3, 4, 5, 6]) expect(user).toContain(`message ${i}`);
    expect(req.messages[0].content).toMatch(/at most 2 additional search queries/);
  });

  it.each([
    // The failures that are not timeouts get a fuse a loaded CI machine cannot outrun (a 300 ms fuse did once).
    { name: 'LLM 500', reply: { status: 500 }, kind: 'http', timeoutMs: 4000 },
    {
      name: 'garbage body',
      reply: { rawBody: 'not json at all', contentType: 'text/plain' },
      kind: 'malformed',
      timeoutMs: 4000,
    },
    {
      name: 'slower than the fuse (plus grace)',
      reply: { text: '[]', delayMs: 5000 },
      kind: 'timeout',
      timeoutMs: 300,
    },
  ])('$name → throws LlmError $kind', async ({ reply, kind, timeoutMs }) => {
    fake.enqueue(reply);
    const err = await service.expand(job({ timeoutMs })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).kind).toBe(kind);
  });

  it('does not call the model for a job that outwaited its fuse in the queue', async () => {
    await expect(service.expand(job({ timeoutMs: 500 }), Date.now() - 600)).rejects.toMatchObject({ kind: 'timeout' });
    expect(fake.requests).toHaveLength(0);
  });
});
