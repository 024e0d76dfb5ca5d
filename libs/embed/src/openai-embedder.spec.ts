import { AddressInfo } from 'node:net';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createEmbedder } from './create-embedder';
import { EmbedError, EmbedErrorCode } from './embed.error';
import { OpenAIEmbedder } from './openai-embedder';

interface Seen {
  auth?: string;
  body: { model: string; input: string[]; dimensions?: number };
}
type Reply = (req: Seen, res: ServerResponse) => void;

/** A real /embeddings server on loopback; each request takes the next scripted reply (the last one repeats). */
class FakeEmbeddingsServer {
  readonly seen: Seen[] = [];
  private server: Server | undefined;
  private replies: Reply[] = [];

  async start(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        if (req.url !== '/v1/embeddings' || req.method !== 'POST') return void res.writeHead(404).end();
        const seen: Seen = { auth: req.headers.authorization, body: JSON.parse(raw) as Seen['body'] };
        this.seen.push(seen);
        const reply = this.replies[Math.min(this.seen.length - 1, this.replies.length - 1)] ?? FakeEmbeddingsServer.ok;
        reply(seen, res);
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
  }

  script(...replies: Reply[]): void {
    this.replies = replies;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  /** Answers with vector [len(text), index, 1, ...] (not normalised; 1536-d unless asked), in reverse order to check re-sorting by index. */
  static ok: Reply = (req, res) => {
    const dim = req.body.dimensions ?? 1536;
    const data = req.body.input.map((t, index) => ({
      object: 'embedding',
      index,
      embedding: Array.from({ length: dim }, (_, i) => (i === 0 ? t.length : i === 1 ? index : 1)),
    }));
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ object: 'list', data: data.reverse(), model: req.body.model }));
  };

  static status(code: number, headers: Record<string, string> = {}): Reply {
    return (_req, res) =>
      res
        .writeHead(code, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify({ error: { message: `status ${code}` } }));
  }

  static hang: Reply = () => undefined;
}

describe('OpenAIEmbedder against a local /embeddings server', () => {
  const server = new FakeEmbeddingsServer();
  let baseUrl = '';
  beforeAll(async () => (baseUrl = await server.start()));
  afterAll(() => server.stop());
  beforeEach(() => {
    server.seen.length = 0;
    server.script(FakeEmbeddingsServer.ok);
  });
  const make = (over: Partial<ConstructorParameters<typeof OpenAIEmbedder>[0]> = {}) =>
    new OpenAIEmbedder({
      baseUrl,
      apiKey: 'sk-test',
      model: 'test-embed',
      dim: 4,
      backoffMs: 5,
      timeoutMs: 2_000,
      ...over,
    });

  it('splits input into batches, keeps order and returns unit vectors', async () => {
    const vectors = await make({ batchSize: 2 }).embed(['a', 'bb', 'ccc', 'dddd', 'eeeee']);
    expect(server.seen.map((s) => s.body.input)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    expect(server.seen[0].auth).toBe('Bearer sk-test');
    expect(server.seen[0].body).toMatchObject({ model: 'test-embed', dimensions: 4 });
    const lengths = vectors.map((v) => Math.round(v[0] / v[3])); // first component / constant 1 = text length
    expect(lengths).toEqual([1, 2, 3, 4, 5]);
    vectors.forEach((v) => expect(Math.hypot(...v)).toBeCloseTo(1, 5));
  });

  it('omits dimensions when none is configured and uses the model default', async () => {
    const embedder = make({ dim: undefined, model: 'text-embedding-3-small' });
    expect(embedder.dim).toBe(1536);
    expect(embedder.id).toBe('openai:text-embedding-3-small:1536');
    await embedder.embed(['x']);
    expect(server.seen[0].body.dimensions).toBeUndefined();
  });

  it('retries a 500 and then succeeds', async () => {
    server.script(
      FakeEmbeddingsServer.status(500),
      FakeEmbeddingsServer.status(429, { 'retry-after': '0' }),
      FakeEmbeddingsServer.ok,
    );
    const [v] = await make().embed(['hello']);
    expect(server.seen).toHaveLength(3);
    expect(v).toHaveLength(4);
  });

  it('gives up on a 400 at once with a permanent error', async () => {
    server.script(FakeEmbeddingsServer.status(400));
    const err = await make()
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbedError);
    expect(err).toMatchObject({ code: EmbedErrorCode.Rejected, retryable: false, status: 400 });
    expect((err as Error).message).toContain('status 400');
    expect(server.seen).toHaveLength(1);
  });

  it('times out a hung request, retries it, then fails as unavailable', async () => {
    server.script(FakeEmbeddingsServer.hang);
    const started = Date.now();
    const err = await make({ timeoutMs: 100, maxRetries: 1 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: EmbedErrorCode.Unavailable, retryable: true });
    expect((err as Error).message).toMatch(/timed out after 100 ms \(after 2 attempts\)/);
    expect(server.seen).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('stops at once when its caller aborts a hung request, and does not retry it', async () => {
    server.script(FakeEmbeddingsServer.hang);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const started = Date.now();
    const err = await make({ timeoutMs: 30_000, maxRetries: 3 })
      .embed(['x'], { signal: abort.signal })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: EmbedErrorCode.Abandoned, retryable: false });
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(server.seen).toHaveLength(1);
  });

  it('makes no further attempt when its caller aborts during the back-off', async () => {
    server.script(FakeEmbeddingsServer.status(503, { 'retry-after': '20' }));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 150);
    const started = Date.now();
    const err = await make({ maxRetries: 3 })
      .embed(['x'], { signal: abort.signal })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: EmbedErrorCode.Abandoned });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.seen).toHaveLength(1);
  });

  it('asks nothing for a call its caller already gave up', async () => {
    const abort = new AbortController();
    abort.abort();
    await expect(make().embed(['x'], { signal: abort.signal })).rejects.toMatchObject({
      code: EmbedErrorCode.Abandoned,
    });
    expect(server.seen).toHaveLength(0);
  });

  it('rejects a response with the wrong dimension', async () => {
    server.script((_req, res) =>
      res.writeHead(200).end(JSON.stringify({ data: [{ index: 0, embedding: [1, 2, 3] }] })),
    );
    await expect(make().embed(['x'])).rejects.toMatchObject({ code: EmbedErrorCode.BadResponse });
  });

  it('fails on a connection refused after retrying', async () => {
    const dead = new FakeEmbeddingsServer();
    const url = await dead.start();
    await dead.stop();
    const err = await make({ baseUrl: url, maxRetries: 2 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: EmbedErrorCode.Unavailable, retryable: true });
  });

  it('sends nothing for an empty input list', async () => {
    expect(await make().embed([])).toEqual([]);
    expect(server.seen).toHaveLength(0);
  });

  it('is what createEmbedder builds for provider openai, and validates config', () => {
    const e = createEmbedder({ provider: 'openai', baseUrl, model: 'test-embed', dim: 4, batchSize: 10 });
    expect(e).toBeInstanceOf(OpenAIEmbedder);
    expect(e.id).toBe('openai:test-embed:4');
    expect(() => createEmbedder({ provider: 'openai', baseUrl, model: 'unknown-model' })).toThrow(/dim is required/);
    expect(() => createEmbedder({ provider: 'openai', model: 'm', dim: 4 })).toThrow(/baseUrl is required/);
  });
});
