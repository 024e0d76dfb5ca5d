import { LlmClient } from '@app/llm';
import { FakeLlmServer, startFakeLlmServer, startTestApp, TestApp } from '@app/testing';
import { Conversation } from '../../bench/locomo-data';
import { buildMemories, DEFAULT_INGEST } from '../../bench/locomo-ingest';
import { extractWithLlm } from '../../bench/locomo-llm';

// bench:locomo with LLM_BASE_URL set: a model (here a real local HTTP server speaking chat completions)
// writes entity and preference memories; sessions it fails on fall back to the LLM-free ones.
const turn = (session: number, i: number, speaker: string, text: string) => ({
  diaId: `D${session}:${i}`,
  speaker,
  text,
  caption: null,
  session,
});
const conv: Conversation = {
  id: 'conv-t',
  speakers: ['Ann', 'Bo'],
  questions: [
    {
      id: 'conv-t#0',
      question: 'What does Ann make at her pottery class?',
      category: 4,
      evidence: ['D1:2'],
      answer: 'bowls',
    },
  ],
  sessions: [
    {
      n: 1,
      rawDate: '1:00 pm on 8 May, 2023',
      isoDate: '2023-05-08',
      longDate: '8 May, 2023',
      turns: [
        turn(1, 1, 'Bo', 'How was your week?'),
        turn(1, 2, 'Ann', 'I started a pottery class and made two lopsided bowls.'),
        turn(1, 3, 'Bo', 'Sounds fun!'),
      ],
    },
    {
      n: 2,
      rawDate: '2:00 pm on 20 May, 2023',
      isoDate: '2023-05-20',
      longDate: '20 May, 2023',
      turns: [
        turn(2, 1, 'Bo', 'Any plans?'),
        turn(2, 2, 'Ann', 'I love hiking in the Alps with my sister every summer.'),
        turn(2, 3, 'Bo', 'Nice.'),
      ],
    },
  ],
};

describe('bench:locomo LLM-written memories (fake OpenAI-compatible server)', () => {
  let llm: FakeLlmServer;
  let app: TestApp;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    app = await startTestApp({});
  });
  afterAll(async () => {
    await app?.close();
    await llm?.close();
  });

  it('turns cited notes into memories, drops citations of no turn, falls back for a session the model fails on, and serves them', async () => {
    llm.respondWith((req) => {
      const user = req.messages.find((m) => m.role === 'user')?.content ?? '';
      if (user.startsWith('Session 2')) return 'Sorry, I cannot help with that.';
      return (
        '```json\n' +
        JSON.stringify({
          summary: 'Ann took up pottery.',
          entities: [
            {
              name: 'Pottery class',
              facts: [
                { text: 'Ann made two bowls at her new pottery class', source: 'D1:2' },
                { text: 'invented', source: 'D9:9' },
              ],
            },
            { name: 'Nobody', facts: [{ text: 'x', source: 'D7:1' }] },
          ],
          preferences: [{ speaker: 'Ann', text: 'Ann enjoys working with clay', source: '[D1:2]' }],
        }) +
        '\n```'
      );
    });
    const client = new LlmClient({ baseUrl: llm.url, apiKey: null, model: 'notes-model', plannerModel: null });
    const notes = await extractWithLlm(client, conv, { timeoutMs: 5000, concurrency: 2 });

    expect([...notes.bySession.keys()]).toEqual([1]);
    expect(notes.failed).toEqual([{ session: 2, reason: expect.stringContaining('no JSON object') }]);
    const s1 = notes.bySession.get(1)!;
    expect([...s1.entities.keys()]).toEqual(['Pottery class']);
    expect(s1.entities.get('Pottery class')!.map((f) => f.source.diaId)).toEqual(['D1:2']);
    expect(s1.preferences.map((f) => f.source.diaId)).toEqual(['D1:2']);
    // The model saw the conversation with its dia_ids, never the question or its answer.
    expect(llm.requests).toHaveLength(2);
    for (const r of llm.requests) {
      expect(r.model).toBe('notes-model');
      expect(JSON.stringify(r.messages)).not.toContain('What does Ann make');
    }
    expect(llm.requests.map((r) => r.messages[1].content).join('\n')).toContain(
      '[D1:2] Ann: I started a pottery class',
    );

    const files = buildMemories(conv, DEFAULT_INGEST, undefined, notes);
    const byPath = new Map(files.map((f) => [f.path, f.content]));
    const entity = byPath.get('entities/pottery-class.md');
    expect(entity).toContain('Ann made two bowls at her new pottery class');
    expect(entity).toContain('"I started a pottery class and made two lopsided bowls."');
    expect(
      files.filter((f) => f.path.startsWith('preferences/') && f.content.includes('Ann enjoys working with clay')),
    ).toHaveLength(1);
    // Default layout: date line, the model's summary, then the opening turns (lead); the log holds the rest once.
    expect(byPath.get('events/2023-05-08-s01.md')).toBe(
      '# Summary\n8 May, 2023, session 1, Bo and Ann.\nAnn took up pottery.\n[D1:1] Bo: How was your week?\n' +
        '[D1:2] Ann: I started a pottery class and made two lopsided bowls.\n# 2023-05-08 ChatLog:\n[D1:3] Bo: Sounds fun!\n',
    );
    // Session 2 failed: its named place and liking turn get LLM-free memories, under names of their own.
    const fallback = files.filter((f) => f.path.endsWith('-plain.md'));
    expect(fallback.map((f) => f.path)).toEqual(['entities/alps-plain.md', 'preferences/ann-d2-2-plain.md']);
    for (const f of fallback) expect(f.content).toContain('I love hiking in the Alps');
    expect(files.some((f) => f.content.includes('D1:') && f.path.endsWith('-plain.md'))).toBe(false);

    const root = 'viking://user/u/memories';
    const headers = { 'X-OpenViking-Account': 'locomo-llm', 'X-OpenViking-User': 'u' };
    const operations = files.map((f) => ({ uri: `${root}/${f.path}`, content: f.content, mode: 'create' }));
    const w = await app.request('POST', '/api/v1/content/batch-write', {
      headers,
      body: { root_uri: root, operations, wait: true },
    });
    expect(w.status).toBe(200);
    const r = await app.request('POST', '/api/v1/search/search', {
      headers,
      body: { query: conv.questions[0].question, mode: 'context', max_tokens: 1600 },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.rendered).toContain('I started a pottery class and made two lopsided bowls.');
    expect(r.body.result.entries.map((e: { uri: string }) => e.uri)).toContain(`${root}/entities/pottery-class.md`);
  });
});
