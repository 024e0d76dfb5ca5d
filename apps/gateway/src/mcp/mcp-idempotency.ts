import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, idempotencyKeyProblem, KernelError, KernelErrorCode } from '@app/kernel';
import { IdempotencyRepository, runInWriteScope } from '@app/store';
import { attemptScope, settleAttempt } from '../idempotency/idempotent-replies';
import { IdempotencySweepService } from '../idempotency/idempotency-sweep.service';
import { MetricsService } from '../system/metrics.service';

/** Where a tool call carries its idempotency key: `params._meta` (MCP's place for a request's own metadata). */
export const MCP_IDEMPOTENCY_KEY = 'muninn/idempotency_key';
/** Set in the `_meta` of a result answered from a kept one: the call was not applied again. */
export const MCP_REPLAYED = 'muninn/idempotent_replayed';
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
  private readonly logger = new Logger(McpIdempotency.name);
  private readonly maxChars: number;

  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly sweep: IdempotencySweepService,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.maxChars = config.store.idempotency.keyMaxChars;
  }

  /** The key a call's `_meta` carries (undefined: none); one that is not a string is refused, naming the field. */
  keyOf(meta: unknown): string | undefined {
    const key = (meta as Record<string, unknown> | undefined)?.[MCP_IDEMPOTENCY_KEY];
    if (key === undefined) return undefined;
    if (typeof key === 'string') return key;
    throw new KernelError(KernelErrorCode.InvalidArgument, `_meta.${MCP_IDEMPOTENCY_KEY} must be a string`, {
      field: `_meta.${MCP_IDEMPOTENCY_KEY}`,
    });
  }

  /** Runs the call `tool(args)` at most once per caller and key. */
  async run(
    caller: Identity,
    key: string,
    tool: string,
    args: Record<string, unknown>,
    call: () => Promise<ToolAnswer>,
  ): Promise<CallToolResult> {
    const problem = idempotencyKeyProblem(key, this.maxChars, `_meta.${MCP_IDEMPOTENCY_KEY}`);
    if (problem) {
      this.metrics.idempotent('malformed');
      throw problem;
    }
    const owner = { accountId: caller.accountId, userId: caller.userId };
    const outcome = await this.keys.claim(owner, key, callFingerprint(caller, tool, args));
    if (outcome.kind === 'refuse') {
      this.metrics.idempotent(String(outcome.error.details?.reason ?? outcome.error.code));
      throw outcome.error;
    }
    if (outcome.kind === 'replay') {
      this.metrics.idempotent('replayed');
      return replayed(outcome.reply.contentType, outcome.reply.body);
    }
    this.sweep.noteAccount(owner.accountId);
    const scope = attemptScope(this.keys, outcome.claim);
    const answer = await runInWriteScope(scope, call);
    // A tool's wait for its indexing that ran out is kept as its result: no retry waits again (the REST routes'
    // resumable 504 answers the route's own answer, which a tool call does not have).
    scope.pendingWait = undefined;
    const kept = { status: answer.status, contentType: RESULT_TYPE, body: JSON.stringify(answer.result) };
    this.metrics.idempotent(await settleAttempt(this.keys, outcome.claim, scope, kept));
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
      field: `_meta.${MCP_IDEMPOTENCY_KEY}`,
      reason: 'different_request',
    });
  }
  const result = JSON.parse(body) as CallToolResult;
  return { ...result, _meta: { ...(result._meta ?? {}), [MCP_REPLAYED]: true } };
}
