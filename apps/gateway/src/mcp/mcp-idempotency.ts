import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { runInWriteScope } from '@app/store';
import { IdempotencyAttempts } from '../idempotency/idempotency-attempts.service';
import { MetricsService } from '../system/metrics.service';

/** Where a tool call carries its idempotency key: `params._meta` (MCP's place for a request's own metadata). */
export const MCP_IDEMPOTENCY_KEY = 'muninn/idempotency_key';
/** Set in the `_meta` of a result answered from a kept one: the call was not applied again. */
export const MCP_REPLAYED = 'muninn/idempotent_replayed';
/** How refusals name the key: where the call carried it. */
const FIELD = `_meta.${MCP_IDEMPOTENCY_KEY}`;
/** The kept reply's type: a tool result, never confused with a REST reply kept for the same caller's key. */
const RESULT_TYPE = 'application/vnd.muninn.mcp-tool-result+json';

/** A tool call's answer, with the HTTP status its REST route would have answered (what decides keeping it). */
export interface ToolAnswer {
  result: CallToolResult;
  status: number;
}

/**
 * Idempotency keys for the writing MCP tools (docs/fs-and-mcp.md, "Retrying a tool call"): the REST routes' keys
 * (docs/limits-and-security.md, "Retrying a write: Idempotency-Key"), in the same table and per caller, carried
 * by a call's `_meta` instead of a header since one POST may carry a batch of calls. A call with a key runs in a
 * write scope, so its first write marks the key in that write's transaction; its result is kept when it applied
 * something or succeeded, and a retry of the same call is answered with it, not applied again.
 */
@Injectable()
export class McpIdempotency {
  constructor(
    private readonly attempts: IdempotencyAttempts,
    private readonly metrics: MetricsService,
  ) {}

  /** The key a call's `_meta` carries (undefined: none); one that is not a string is refused, naming the field. */
  keyOf(meta: unknown): string | undefined {
    const key = (meta as Record<string, unknown> | undefined)?.[MCP_IDEMPOTENCY_KEY];
    if (key === undefined) return undefined;
    if (typeof key === 'string') return key;
    throw new KernelError(KernelErrorCode.InvalidArgument, `${FIELD} must be a string`, { field: FIELD });
  }

  /** Runs the call `tool(args)` at most once per caller and key. */
  async run(
    caller: Identity,
    key: string,
    tool: string,
    args: Record<string, unknown>,
    call: () => Promise<ToolAnswer>,
  ): Promise<CallToolResult> {
    const owner = { accountId: caller.accountId, userId: caller.userId };
    const start = await this.attempts.start(owner, key, callFingerprint(caller, tool, args), FIELD);
    if (start.kind === 'refused') {
      this.metrics.idempotent(start.reason);
      throw start.error;
    }
    if (start.kind === 'replay') {
      this.metrics.idempotent('replayed');
      return replayed(start.reply.contentType, start.reply.body);
    }
    const { claim, scope } = start;
    const answer = await runInWriteScope(scope, call);
    // A tool's wait for its indexing that ran out is kept as its result: no retry waits again (the REST routes'
    // resumable 504 answers the route's own answer, which a tool call does not have).
    scope.pendingWait = undefined;
    const kept = { status: answer.status, contentType: RESULT_TYPE, body: JSON.stringify(answer.result) };
    this.metrics.idempotent(await this.attempts.settle(claim, scope, kept));
    return answer.result;
  }
}

/**
 * What makes two calls "the same call" for a key: the tool, the actor peer, and the arguments as read (a retry
 * sends the same ones). Prefixed so that no REST request's fingerprint can equal it: a key first sent to a REST
 * route and then with a tool call (or the other way) is refused as reused.
 */
function callFingerprint(caller: Identity, tool: string, args: Record<string, unknown>): string {
  return createHash('sha256')
    .update(`MCP tools/call ${tool}\n${caller.actorPeerId ?? ''}\n${JSON.stringify(args)}`)
    .digest('base64url');
}

/** The kept result, marked as replayed. */
function replayed(contentType: string, body: string): CallToolResult {
  if (contentType !== RESULT_TYPE) {
    // Only a tool call's own fingerprint can reach a kept reply here; anything else is refused, not replayed.
    throw new KernelError(KernelErrorCode.Conflict, 'This idempotency key holds the reply of a REST request', {
      field: FIELD,
      reason: 'different_request',
    });
  }
  const result = JSON.parse(body) as CallToolResult;
  return { ...result, _meta: { ...(result._meta ?? {}), [MCP_REPLAYED]: true } };
}
