import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Identity, KernelError, KernelErrorCode, PendingIndexWait } from '@app/kernel';
import { runInWriteScope } from '@app/store';
import { IndexDispatchService } from '../content/index-dispatch.service';
import { callFingerprint } from '../idempotency/fingerprint';
import { IdempotencyAttempts } from '../idempotency/idempotency-attempts.service';
import type { ResumeTarget } from '../idempotency/idempotent-request';
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

/** A tool's result built from its write route's answer once a resumed wait for the write's indexing ended. */
export type ResumedResult = (answer: Record<string, unknown>) => CallToolResult;

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
    private readonly dispatcher: IndexDispatchService,
    private readonly metrics: MetricsService,
  ) {}

  /** The key a call's `_meta` carries (undefined: none); one that is not a string is refused, naming the field. */
  keyOf(meta: unknown): string | undefined {
    const key = (meta as Record<string, unknown> | undefined)?.[MCP_IDEMPOTENCY_KEY];
    if (key === undefined) return undefined;
    if (typeof key === 'string') return key;
    throw new KernelError(KernelErrorCode.InvalidArgument, `${FIELD} must be a string`, { field: FIELD });
  }

  /**
   * Runs the call `tool(args)` at most once per caller and key. A tool that can answer from its write route's
   * answer (`resumed`: write, edit) has a wait for its indexing that ran out (the write stored) kept resumable, as
   * the REST routes' 504: its retry waits for that indexing again and answers as the call would have, instead of
   * the timeout being replayed for the key's whole life (and the agent writing again under a new key: an append
   * appended twice).
   */
  async run(
    caller: Identity,
    key: string,
    tool: string,
    args: Record<string, unknown>,
    call: () => Promise<ToolAnswer>,
    resumed?: ResumedResult,
  ): Promise<CallToolResult> {
    const owner = { accountId: caller.accountId, userId: caller.userId };
    const start = await this.attempts.start(owner, key, callFingerprint(caller, tool, args), FIELD);
    if (start.kind === 'refused') {
      this.metrics.idempotent(start.reason);
      throw start.error;
    }
    if (start.kind === 'replay') {
      const { resume, holder } = start.reply;
      if (resume && holder && resumed && start.reply.contentType === RESULT_TYPE)
        return this.resume({ owner, key, holder }, resume, resumed);
      this.metrics.idempotent('replayed');
      return replayed(start.reply.contentType, start.reply.body);
    }
    const { claim, scope } = start;
    let answer: ToolAnswer;
    try {
      answer = await runInWriteScope(scope, call);
    } catch (err) {
      // No answer to keep: the key is freed when nothing was applied, else left to say so; its lease renewal ends.
      await this.attempts.settle(claim, scope, { status: 500, contentType: RESULT_TYPE, body: null });
      throw err;
    }
    // Without its own answer to a resumed wait, a tool's wait that ran out is kept as its final result.
    if (!resumed) scope.pendingWait = undefined;
    const kept = { status: answer.status, contentType: RESULT_TYPE, body: JSON.stringify(answer.result) };
    this.metrics.idempotent(await this.attempts.settle(claim, scope, kept));
    return answer.result;
  }

  /**
   * A retry of a call whose wait for its write's indexing ran out: waits for that indexing again. Its result
   * replaces the kept timeout; a wait that runs out again throws (the call answers the timeout) and stays resumable.
   */
  private async resume(target: ResumeTarget, wait: PendingIndexWait, resumed: ResumedResult): Promise<CallToolResult> {
    let result: CallToolResult;
    try {
      result = resumed(await this.dispatcher.resume(wait));
    } catch (err) {
      this.metrics.idempotent('still_waiting');
      throw err;
    }
    const body = JSON.stringify(result);
    this.metrics.idempotent(await this.attempts.keepResumed(target, { status: 200, contentType: RESULT_TYPE, body }));
    return { ...result, _meta: { ...(result._meta ?? {}), [MCP_REPLAYED]: true } };
  }
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
