import { startTestApp, TestApp } from '@app/testing';
import { context, devAs, JobSpy, seed, post, RECALL } from './context-support';

describe('probe', () => {
  let app: TestApp;
  let spy: JobSpy;
  const t0 = Date.now();
  beforeAll(async () => {
    app = await startTestApp({});
    spy = new JobSpy(app);
    console.log('boot', Date.now() - t0);
  });
  afterAll(async () => { await spy.close(); await app.close(); });
  it('probes', async () => {
    const as = devAs('probe', 'pu');
    let t = Date.now();
    await seed(app, as, 'viking://user/pu/memories/events/quokkafest.md', '# Summary\nQuokkafest happened.\n\n# 2026-01-01 ChatLog:\n' + 'chatter '.repeat(50));
    console.log('seed', Date.now() - t);
    t = Date.now();
    await seed(app, as, 'viking://resources/we&ird"na<me.md', 'quokkafest weird resource body\n\nsecond para');
    await seed(app, as, 'viking://user/pu/memories/entities/crew/alpha.md', 'alpha member of quokkafest crew');
    await seed(app, as, 'viking://user/pu/memories/entities/crew/beta.md', 'beta member of quokkafest crew');
    await seed(app, as, 'viking://resources/blankzeta.md', '');
    console.log('seed4', Date.now() - t);
    t = Date.now();
    const r = await context(app, { query: 'quokkafest crew' }, as);
    console.log('ctx', Date.now() - t, JSON.stringify(r.body, null, 1));
    const r2 = await context(app, { query: 'blankzeta' , quotas: {entities: 3, resources: 2}}, as);
    console.log(JSON.stringify(r2.body, null, 1));
    console.log(JSON.stringify(await spy.finds('blankzeta'), null, 1));
    const r3 = await post(app, RECALL, { query: 'quokkafest' }, as);
    console.log(r3.status, JSON.stringify(r3.body.result.stats));
    const emp = await context(app, { query: 'nothing' }, devAs('emptyacct', 'nobody'));
    console.log(emp.status, JSON.stringify(emp.body));
  });
});
