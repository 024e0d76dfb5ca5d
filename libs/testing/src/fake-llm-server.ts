import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

/** One scripted answer of the fake LLM. Every field is optional; `{}` is an empty answer after no delay. */
export interface FakeLlmReply {
  /** The assistant message text. */
  text?: string;
  /** Wait this long before answering (the client may give up first). */
  delayMs?: number;
  /** HTTP status; anything but 2xx answers an OpenAI-style error body. */
  status?: number;
  /** Send this body verbatim instead of a completion (e.g. malformed JSON). */
  rawBody?: string;
  /** Content type of `rawBody` (default `application/json`). */
  contentType?: string;
  /** Token usage to report; `null` omits the `usage` field. Default: the prompt's and the answer's character counts. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** Drop the connection without answering (after `delayMs`). */
  hangUp?: boolean;
  /** Extra response headers (e.g. a 429's `retry-after`). */
  headers?: Record<string, string>;
}

/** A request the fake received, for assertions. */
export interface FakeLlmRequest {
  path: string;
  model: string;
  messages: { role: string; content: string }[];
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  /** When it arrived (epoch ms). */
  receivedAt: number;
  /** Set when the client closed the connection before the answer (an aborted call): how long after arrival, ms. */
  abandonedAfterMs?: number;
}

/** Whether a request is the rewriter's query planner (expansion) call, not a digest or an extraction. */
export function isPlannerRequest(req: FakeLlmRequest): boolean {
  return /plan searches/.test(req.messages[0]?.content ?? '');
}

/** Whether any message of the request contains `text`. */
export function mentions(req: FakeLlmRequest, text: string): boolean {
  return req.messages.some((m) => m.content.includes(text));
}

/** A reply, a bare answer text, or a function of the request returning either. */
export type FakeLlmScript =
  FakeLlmReply | string | ((req: FakeLlmRequest) => FakeLlmReply | string | Promise<FakeLlmReply | string>);

/** A real OpenAI-compatible chat-completions server on 127.0.0.1 for tests and benchmarks. */
export interface FakeLlmServer {
  /** Base URL to configure as `LLM_BASE_URL`, ending in `/v1`. */
  url: string;
  /** Every chat-completion request received, in arrival order. */
  requests: FakeLlmRequest[];
  /** Queues replies, used first in, first out, before the fallback. */
  enqueue(...replies: FakeLlmScript[]): void;
  /** The reply used when the queue is empty (initially an empty answer). */
  respondWith(script: FakeLlmScript): void;
  /** Clears the queue, the recorded requests and the fallback. */
  reset(): void;
  close(): Promise<void>;
}

const PATHS = new Set(['/v1/chat/completions', '/chat/completions']);

/** Starts a fake LLM on a free loopback port, answering POST `/v1/chat/completions` (and `/chat/completions`). */
export async function startFakeLlmServer(opts: { fallback?: FakeLlmScript } = {}): Promise<FakeLlmServer> {
  const queue: FakeLlmScript[] = [];
  const requests: FakeLlmRequest[] = [];
  let fallback: FakeLlmScript = opts.fallback ?? {};
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let seq = 0;

  const wait = (ms: number, res: ServerResponse): Promise<void> =>
    new Promise((resolve) => {
      if (ms <= 0) return resolve();
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
      res.once('close', () => {
        clearTimeout(t);
        timers.delete(t);
        resolve();
      });
    });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || !PATHS.has(path)) return send(res, 404, errorBody(`no route ${req.method} ${path}`));
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return send(res, 400, errorBody('request body is not JSON'));
    }
    const messages = Array.isArray(body.messages) ? (body.messages as { role: string; content: string }[]) : [];
    const arrived = Date.now();
    const received: FakeLlmRequest = {
      path,
      model: String(body.model ?? ''),
      messages,
      body,
      headers: req.headers,
      receivedAt: arrived,
    };
    requests.push(received);
    let hungUp = false;
    res.once('close', () => {
      if (!res.writableEnded && !hungUp) received.abandonedAfterMs = Date.now() - arrived;
    });
    const script = queue.length > 0 ? queue.shift()! : fallback;
    const reply = toReply(typeof script === 'function' ? await script(received) : script);
    await wait(reply.delayMs ?? 0, res);
    if (res.destroyed || res.writableEnded) return;
    if (reply.hangUp) {
      hungUp = true;
      return void req.socket.destroy();
    }
    const status = reply.status ?? 200;
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (reply.rawBody !== undefined) return send(res, status, reply.rawBody, reply.contentType);
    if (status < 200 || status > 299) return send(res, status, errorBody(`scripted status ${status}`));
    const text = reply.text ?? '';
    const usage = reply.usage === undefined ? defaultUsage(messages, text) : reply.usage;
    const completion = {
      id: `chatcmpl-fake-${++seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: received.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    };
    send(res, status, JSON.stringify(completion));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, errorBody(`fake LLM script threw: ${String(err)}`));
    });
  });
  server.keepAliveTimeout = 1000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    respondWith: (script) => void (fallback = script),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      fallback = {};
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function toReply(script: FakeLlmReply | string): FakeLlmReply {
  return typeof script === 'string' ? { text: script } : script;
}

function defaultUsage(
  messages: { content: string }[],
  text: string,
): { prompt_tokens: number; completion_tokens: number } {
  const prompt = messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0);
  return { prompt_tokens: prompt, completion_tokens: text.length };
}

function errorBody(message: string): string {
  return JSON.stringify({ error: { message, type: 'fake_error', code: null } });
}

function send(res: ServerResponse, status: number, body: string, contentType = 'application/json'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
