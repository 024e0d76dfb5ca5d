// Issue 14, end to end: the README's first session serves the memory and nothing redundant (the
// directory overviews that only repeat it are withdrawn and counted in `stats.redundant`), and the
// user root is never labelled a resource.
import { startTestApp, TestApp } from '@app/testing';
import { context, devAs, entriesOf, seed } from './context-support';

describe('context quality (issue 14)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it("the README's first session: the memory, nothing redundant", async () => {
    const as = devAs('quality-first', 'default');
    await seed(app, as, 'viking://user/default/memories/preferences/editor.md', 'Prefers vim keybindings and dark themes.');
    // Directory summaries are written after the file: wait until the user root's overview mentions it.
    for (let i = 0; i < 50; i++) {
      const o = await app.request('GET', '/api/v1/content/overview?uri=viking://user/default', as);
      if (o.status === 200 && String(o.body.result).includes('vim')) break;
      await new Promise((done) => setTimeout(done, 100));
    }
    const r = await context(app, { query: 'which editor settings does the user like?', mode: 'context', max_tokens: 800 }, as);
    expect(r.status).toBe(200);
    const entries = entriesOf(r);
    expect(entries.map((e) => e.uri)).toEqual(['viking://user/default/memories/preferences/editor.md']);
    expect(entries[0]!.text).toBe('Prefers vim keybindings and dark themes.');
    expect(r.body.result.stats.redundant).toBeGreaterThanOrEqual(1);
    expect(Object.keys(r.body.result.stats).at(-1)).toBe('redundant');
  });
});
