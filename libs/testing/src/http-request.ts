import { request } from 'node:http';
import { eventually } from './eventually';
/** A response as the suites read it: status, headers, the body parsed as JSON when it is JSON, and its text. */
export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestRequestOptions {
  body?: unknown;
  key?: string;
  headers?: Record<string, string>;
  raw?: string;
}

/** One HTTP request to a server at `url`: what `TestApp.request` does, for servers started as processes. */
export type TestRequest = <T = any>(
  method: string,
  path: string,
  opts?: TestRequestOptions,
) => Promise<TestResponse<T>>;

/** Requests to the Muninn at `url` (`opts.key` as X-API-Key, `opts.body` as JSON, `opts.raw` as is). */
export function requestTo(url: string): TestRequest {
  return async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.key) headers['x-api-key'] = o.key;
    let body: string | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    } else if (o.raw !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as any, text };
  };
}

/**
 * The value of one series on the server's `GET /metrics`, named as Prometheus prints it (say
 * `muninn_model_calls_total{call="expand",outcome="ok"}`); null when the server prints no such line.
 */
export async function metricValue(request: TestRequest, series: string): Promise<number | null> {
  const text = (await request('GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

/**
 * Waits until the gateway counts exactly `n` requests `state` (`running` or `waiting`) in one of its lanes
 * (`muninn_lane_requests`: `inflight`, the request slots, by default; `large_bodies`, `large_searches`), where
 * `/metrics` itself takes no place: a suite that holds requests open, or lets them go, looks once the lanes say
 * so, not after a fixed pause that a loaded machine can outlast.
 */
export async function untilSlots(
  request: TestRequest,
  state: 'running' | 'waiting',
  n: number,
  lane = 'inflight',
): Promise<void> {
  const series = `muninn_lane_requests{lane="${lane}",state="${state}"}`;
  await eventually(async () => ((await metricValue(request, series)) ?? 0) === n, { ms: 30_000, pollMs: 50 });
}

/** A request a suite drops mid-way (a client that goes away): `drop()` closes its connection. */
export interface DroppableRequest {
  drop(): void;
  /** How it ended: `answered`, or the connection's error once dropped. */
  ended: Promise<string>;
}

/** POSTs `payload` as JSON on a connection of its own (no keep-alive pool), for the suite to drop. */
export function droppableRequest(
  url: string,
  payload: unknown,
  headers: Record<string, string> = {},
): DroppableRequest {
  const raw = JSON.stringify(payload);
  const sent = request(url, {
    method: 'POST',
    agent: false,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': Buffer.byteLength(raw),
      ...headers,
    },
  });
  const ended = new Promise<string>((resolve) => {
    sent.on('error', (err) => resolve(err.message));
    sent.on('response', () => resolve('answered'));
  });
  sent.end(raw);
  return { drop: () => sent.destroy(), ended };
}
