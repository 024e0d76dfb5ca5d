import { HttpException } from '@nestjs/common';
import { errorCodes } from 'fastify';

// The MCP endpoint's refusals (docs/fs-and-mcp.md, "Transport"): whatever stops a request before the
// MCP transport reads it is answered with the REST status, in a JSON-RPC error body an MCP client can read.

/** The MCP route, with or without a query or a trailing path. */
export const MCP_PATH = /^\/mcp(\/|\?|$)/;

/** JSON-RPC's code for a body that is not JSON. */
const PARSE_ERROR = -32700;
/** The code MCP servers use for a request refused before any method runs. */
const REFUSED = -32001;

/** JSON-RPC error body for a refusal rendered as the REST `envelope`; `parse` when the body was not JSON. */
export function jsonRpcError(envelope: unknown, parse = false) {
  const message = (envelope as { error?: { message?: string } }).error?.message ?? 'Refused';
  return { jsonrpc: '2.0', id: null, error: { code: parse ? PARSE_ERROR : REFUSED, message } };
}

// Nest hands Fastify's parser refusals to the filters as a bare HttpException (routes-resolver's
// mapExternalException keeps only the message and status), so the messages are what identifies them.
const PARSE_MESSAGES = new Set([
  new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY().message,
  new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY().message,
]);

/** True for a refusal of a body that is not JSON (or is empty), however it reached the filter. */
export function isJsonParseError(exception: unknown): boolean {
  if (exception instanceof SyntaxError) return true;
  const code = (exception as { code?: unknown })?.code;
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return true;
  return exception instanceof HttpException && exception.getStatus() === 400 && PARSE_MESSAGES.has(exception.message);
}
