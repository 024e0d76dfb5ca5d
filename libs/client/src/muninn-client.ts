import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/openapi';

/** Where and as whom to call Muninn. */
export interface MuninnClientOptions {
  /** Server root, e.g. `http://127.0.0.1:1933`. */
  baseUrl: string;
  /** A user or admin key (sent as `X-API-Key`); none in dev mode. */
  apiKey?: string;
  /** Dev-mode identity headers (`X-OpenViking-Account` / `X-OpenViking-User`). */
  accountId?: string;
  userId?: string;
  /** Actor peer view (`X-OpenViking-Actor-Peer`). */
  peerId?: string;
  headers?: Record<string, string>;
  /** A custom fetch (tests, proxies). */
  fetch?: (input: Request) => Promise<Response>;
  /**
   * How many times a request refused with 429 is sent again, each after its `Retry-After` (default 0:
   * the 429 is returned). Safe for every route: a 429 means nothing was done (a rate limit, the
   * account's line, or its index or commit backlog, docs/limits-and-security.md).
   */
  retries429?: number;
  /** Longest wait honoured before one such retry, in seconds (default 30); a longer `Retry-After` is returned as is. */
  maxRetryAfterS?: number;
}

/** The typed client generated from the server's OpenAPI document (openapi-fetch over `paths`). */
export type MuninnClient = Client<paths>;

/** Request headers for the identity in `opts` (docs/contract.md#accounts-users-and-keys, #actor-peer). */
export function identityHeaders(opts: Omit<MuninnClientOptions, 'baseUrl' | 'fetch'>): Record<string, string> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  if (opts.accountId) headers['x-openviking-account'] = opts.accountId;
  if (opts.userId) headers['x-openviking-user'] = opts.userId;
  if (opts.peerId) headers['x-openviking-actor-peer'] = opts.peerId;
  return headers;
}

/** A typed Muninn client: `client.POST('/api/v1/search/find', { body })` returns `{ data, error, response }`. */
export function createMuninnClient(opts: MuninnClientOptions): MuninnClient {
  const retries = opts.retries429 ?? 0;
  return createClient<paths>({
    baseUrl: withoutTrailingSlashes(opts.baseUrl),
    headers: identityHeaders(opts),
    fetch: retries > 0 ? retrying429(opts.fetch ?? ((r) => fetch(r)), retries, opts.maxRetryAfterS ?? 30) : opts.fetch,
  });
}

/**
 * `send`, with a request refused by 429 sent again after its `Retry-After` (seconds), up to `retries`
 * times; a wait longer than `maxWaitS`, or one given as a date, returns the 429.
 */
export function retrying429(
  send: (input: Request) => Promise<Response>,
  retries: number,
  maxWaitS: number,
): (input: Request) => Promise<Response> {
  return async (first) => {
    let request = first;
    for (let attempt = 0; ; attempt++) {
      // A body can be read once: the copy for the next attempt is taken before this one is sent.
      const spare = attempt < retries ? request.clone() : null;
      const response = await send(request);
      if (response.status !== 429 || !spare) return response;
      const waitS = Number(response.headers.get('retry-after') ?? '1');
      if (!Number.isFinite(waitS) || waitS < 0 || waitS > maxWaitS) return response;
      await response.body?.cancel();
      await new Promise((r) => setTimeout(r, waitS * 1000));
      request = spare;
    }
  };
}

/** A URL without its trailing slashes (a scan from the end: `/\/+$/` rescans a run of slashes from each one). */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end -= 1;
  return url.slice(0, end);
}
