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
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: identityHeaders(opts),
    fetch: opts.fetch,
  });
}
