// Shared by the session suites: polling for asynchronous outcomes (commits, extraction, indexing) and
// the fake model's Working Memory answers. The seven headings are restated from docs/sessions.md
// ("Working Memory") as an oracle, not imported from the kernel under test.
import {
  eventually,
  FakeLlmRequest,
  FakeLlmScript,
  FakeLlmServer,
  startFakeLlmServer,
  startTestApp,
  TestApp,
} from '@app/testing';

export { eventually };

export const WORKING_MEMORY_SECTIONS = [
  'Session Title',
  'Current State',
  'Task & Goals',
  'Key Facts & Decisions',
  'Files & Context',
  'Errors & Corrections',
  'Open Issues',
];

/** A well-formed Working Memory overview with the given title, as a model would write it. */
export const workingMemory = (title: string) =>
  `# Working Memory\n\n${WORKING_MEMORY_SECTIONS.map((s) => `## ${s}\n${s === 'Session Title' ? title : '- noted'}`).join('\n\n')}`;

/** Whether a fake-model request is the extraction call (not the archive summary). */
export const isExtraction = (req: FakeLlmRequest) =>
  req.messages[0]?.content.startsWith('You extract long-term memories') ?? false;

/**
 * A test app whose model is a fake OpenAI-protocol server answering `fallback`, started before the
 * describe's tests and closed after them, with the calls its tests make.
 */
export function modelTestApp(fallback: FakeLlmScript, env: Record<string, string> = {}) {
  const ctx: { app?: TestApp; llm?: FakeLlmServer } = {};
  beforeAll(async () => {
    ctx.llm = await startFakeLlmServer({ fallback });
    ctx.app = await startTestApp({ env: { LLM_BASE_URL: ctx.llm.url, LLM_MODEL: 'fake', ...env } });
  }, 60_000);
  afterAll(async () => {
    await ctx.app?.close();
    await ctx.llm?.close();
  });
  const post = (path: string, body?: unknown) => ctx.app!.request('POST', path, { body: body ?? {} });
  const get = (path: string) => ctx.app!.request('GET', path);
  return {
    post,
    get,
    /** The extraction calls the model received so far. */
    extractionCalls: () => ctx.llm!.requests.filter(isExtraction),
    /** Posts the messages, commits, and waits for the task to finish; the task. */
    commitAndWait: async (sid: string, messages: unknown[]) => {
      await post(`/api/v1/sessions/${sid}/messages/batch`, { messages });
      const c = (await post(`/api/v1/sessions/${sid}/commit`)).body.result;
      return eventually(async () => {
        const r = (await get(`/api/v1/tasks/${c.task_id}`)).body.result;
        return r?.status === 'completed' || r?.status === 'failed' ? r : null;
      });
    },
  };
}
