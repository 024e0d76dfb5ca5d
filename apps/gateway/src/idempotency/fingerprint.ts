import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Fingerprint, Identity } from '@app/kernel';

const ACTOR_PEER_HEADER = 'x-openviking-actor-peer';

/**
 * What makes two REST requests "the same request" for a key: method, path, query, the actor peer (it
 * narrows what the caller sees) and body, each in a canonical form (docs/limits-and-security.md,
 * "Retrying a write"): the query as the router parsed it (what the handler is given: names sorted, a
 * repeated name's values in their order), object keys sorted at every depth. A retry rebuilt by another
 * client library, or by an agent that wrote its arguments again, reorders keys and parameters but sends
 * the same request. A body that arrived as bytes (an upload) counts as its bytes.
 */
export function requestFingerprint(
  req: Pick<FastifyRequest, 'method' | 'url' | 'body' | 'headers' | 'query'>,
): Fingerprint {
  const peer = String(req.headers[ACTOR_PEER_HEADER] ?? '');
  const path = req.url.split('?', 1)[0];
  const head = `${req.method} ${path}\n${canonical(req.query ?? {})}\n${peer}\n`;
  const asSent = `${req.method} ${req.url}\n${peer}\n`;
  const body = req.body;
  if (Buffer.isBuffer(body)) return { value: digest(head, body), asSent: digest(asSent, body) };
  return { value: digest(head, canonical(body)), asSent: digest(asSent, JSON.stringify(body ?? null)) };
}

/**
 * What makes two MCP tool calls "the same call" for a key: the tool, the actor peer, and the arguments
 * with their keys sorted. Prefixed so that no REST request's fingerprint can equal it: a key first sent
 * to a REST route and then with a tool call (or the other way) is refused as reused.
 */
export function callFingerprint(caller: Identity, tool: string, args: Record<string, unknown>): Fingerprint {
  const head = `MCP tools/call ${tool}\n${caller.actorPeerId ?? ''}\n`;
  return { value: digest(head, canonical(args)), asSent: digest(head, JSON.stringify(args)) };
}

/**
 * JSON with every object's keys sorted. JSON.stringify with a replacer that hands it a sorted copy of an object
 * whose keys are out of order, and the object itself otherwise: measured on a 1.9 MB batch of 20,000 messages,
 * 28–36 ms against JSON.stringify's 8–19 ms, where the sorting serialisers (safe-stable-stringify,
 * fast-json-stable-stringify) took 62–214 ms of the event loop. Integer-like keys come first in ascending order
 * whatever the copy's order (the language's rule for property order), which is as canonical.
 */
function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, sortedKeys);
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.every((k, i) => i === 0 || keys[i - 1] <= k)) return value;
  // No prototype: a key named __proto__ stays a key of the copy instead of setting its prototype.
  const copy = Object.create(null) as Record<string, unknown>;
  for (const k of keys.sort()) copy[k] = (value as Record<string, unknown>)[k];
  return copy;
}

function digest(head: string, body: string | Buffer): string {
  return createHash('sha256').update(head).update(body).digest('base64url');
}
