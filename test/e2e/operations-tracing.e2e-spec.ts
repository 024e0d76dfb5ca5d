import { createServer, Server } from 'node:http';
import {
  AppProcess,
  buildDist,
  createTestDatabase,
  freePort,
  startAppProcess,
  TestDatabase,
  waitReady,
  eventually,
} from '@app/testing';

// Separate gateway, retriever and assembler processes share one PostgreSQL store, so this suite runs
// where the CI provides PostgreSQL (like faults.e2e-spec.ts). The collector is a local HTTP server
// speaking OTLP/HTTP JSON, the only stand-in: every span comes from the real processes.
const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;

interface SeenSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number };
type OtlpAttr = { key: string; value: OtlpValue };
interface OtlpBody {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttr[] };
    scopeSpans?: { spans?: (Omit<SeenSpan, 'service' | 'attributes'> & { attributes?: OtlpAttr[] })[] }[];
  }[];
}

const attrs = (list: OtlpAttr[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, a.value.stringValue ?? a.value.intValue]));

/** Polls until `check` holds; a failing attempt (a server still away) counts as "not yet". */
const settled = (check: () => Promise<boolean> | boolean, ms = 30_000) =>
  eventually(check, { ms, pollMs: 200, retryErrors: true });

suite('tracing: one request, spans from every process it touched', () => {
  const spans: SeenSpan[] = [];
  let collector: Server;
  let db: TestDatabase;
  let url: string;
  let procs: AppProcess[] = [];

  beforeAll(async () => {
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const doc = JSON.parse(body) as OtlpBody;
        for (const rs of doc.resourceSpans ?? []) {
          const service = String(attrs(rs.resource?.attributes)['service.name']);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) spans.push({ ...s, service, attributes: attrs(s.attributes) });
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    const otlpPort = await freePort();
    await new Promise<void>((r) => collector.listen(otlpPort, '127.0.0.1', () => r()));
    buildDist();
    db = await createTestDatabase(PG as string);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL ?? '',
      MUNINN_QUEUE_PREFIX: `tracing-${port}`,
      MUNINN_OTLP_TRACES_URL: `http://127.0.0.1:${otlpPort}/v1/traces`,
    };
    // The extractor too: /ready wants a worker on every queue, session commits included. It logs at `log`
    // level here so its start-up lines show the log format.
    procs = (['gateway', 'retriever', 'assembler', 'extractor'] as const).map((app) =>
      startAppProcess(app, app === 'extractor' ? { ...env, LOG_LEVEL: 'log' } : env),
    );
    await waitReady(url);
  }, 240000);

  afterAll(async () => {
    // On a failure, what the processes said is the first thing to read.
    for (const p of procs)
      if (p.child.exitCode !== null) process.stdout.write(`[tracing] exited early:\n${p.output().slice(-2000)}\n`);
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await new Promise((r) => collector?.close(r));
    await db?.drop();
  });

  it('a context request is one trace: gateway → queue → retriever and assembler → store', async () => {
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const w = await post('/api/v1/content/write', {
      uri: 'viking://~/memories/entities/quokka.md',
      content: 'The quokka lives on Rottnest Island.',
      mode: 'create',
      wait: true,
    });
    expect(w.status).toBe(200);
    const r = await post(
      '/api/v1/search/search',
      { query: 'quokka island', mode: 'context' },
      { 'x-request-id': 'trace-me-42' },
    );
    expect(r.status).toBe(200);

    let traceId = '';
    const inTrace = () => spans.filter((s) => s.traceId === traceId);
    await settled(() => {
      traceId = spans.find((s) => s.attributes['muninn.request_id'] === 'trace-me-42')?.traceId ?? '';
      const names = new Set(inTrace().map((s) => `${s.service} ${s.name}`));
      return [
        'muninn-retriever find process',
        'muninn-assembler assemble process',
        'muninn-retriever store query',
      ].every((n) => names.has(n));
    });
    const got = inTrace();
    expect([...new Set(got.map((s) => s.service))].sort()).toEqual([
      'muninn-assembler',
      'muninn-gateway',
      'muninn-retriever',
    ]);
    const root = got.find((s) => s.service === 'muninn-gateway' && s.name === 'HTTP POST /api/v1/search/search')!;
    expect(root).toBeDefined();
    // Every worker span hangs under a gateway `send` span, which hangs (through the handler) under the request.
    const byId = new Map(got.map((s) => [s.spanId, s]));
    for (const consumer of got.filter((s) => s.name.endsWith(' process'))) {
      const producer = byId.get(consumer.parentSpanId ?? '');
      expect({ consumer: consumer.name, producer: producer?.name, service: producer?.service }).toEqual({
        consumer: consumer.name,
        producer: consumer.name.replace(' process', ' send'),
        service: 'muninn-gateway',
      });
    }
    const stores = got.filter((s) => s.name === 'store query' && s.service !== 'muninn-gateway');
    expect(stores.every((s) => byId.get(s.parentSpanId ?? '')?.name.endsWith(' process'))).toBe(true);
  }, 120000);

  it('a session commit is one trace down to the extractor, which logs JSON lines with the request id', async () => {
    const call = (method: string, path: string, body?: unknown, requestId = `other-${Math.random()}`) =>
      fetch(`${url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ result: any }>);
    const sid = (await call('POST', '/api/v1/sessions', {})).result.session_id as string;
    await call('POST', `/api/v1/sessions/${sid}/messages`, { role: 'user', content: 'I adopted a quokka named Pip.' });
    const task = (await call('POST', `/api/v1/sessions/${sid}/commit`, {}, 'trace-commit-7')).result.task_id as string;
    await settled(async () => (await call('GET', `/api/v1/tasks/${task}`)).result?.status === 'completed');

    let traceId = '';
    await settled(() => {
      traceId = spans.find((s) => s.attributes['muninn.request_id'] === 'trace-commit-7')?.traceId ?? '';
      return spans.some(
        (s) => s.traceId === traceId && s.service === 'muninn-extractor' && s.name === 'extract process',
      );
    });
    const got = spans.filter((s) => s.traceId === traceId);
    const byId = new Map(got.map((s) => [s.spanId, s]));
    const extract = got.find((s) => s.service === 'muninn-extractor' && s.name === 'extract process')!;
    const producer = byId.get(extract.parentSpanId ?? '');
    expect([producer?.service, producer?.name]).toEqual(['muninn-gateway', 'extract send']);
    // The memories it wrote are stored under the same trace.
    expect(got.some((s) => s.service === 'muninn-extractor' && s.name === 'store query')).toBe(true);

    const lines = procs[3]
      .output()
      .split('\n')
      .filter((l) => l.trim());
    expect(lines.length).toBeGreaterThan(0);
    const notJson = lines.filter((l) => {
      try {
        return (JSON.parse(l) as { app?: string }).app !== 'extractor';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
  }, 120000);
});
