import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  codePointLength,
  Identity,
  MessagePart,
  messageText,
  messageTokens,
  planToolOutputs,
  toolOutputPreview,
} from '@app/kernel';
import { NewMessage, NewToolResult, SessionToolResultRepository, toolResultsDir } from '@app/store';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Large tool output externalisation (docs/sessions.md "Tool results"): before the messages of an add
 * are stored, each long tool output (and, while one added turn's outputs are over the turn budget,
 * its largest ones) becomes a tool result of the session, and the part keeps a preview plus the
 * `tool_output_*` fields. When the session already holds its maximum of tool results the output
 * stays inline and the part says why (`tool_output_externalization_error`): the contract's
 * `preserve_raw` failure mode.
 */
@Injectable()
export class ToolOutputService {
  private readonly limits: AppConfig['sessions']['toolOutputs'];

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly results: SessionToolResultRepository,
  ) {
    this.limits = config.sessions.toolOutputs;
  }

  /** The turns (one per message body) with their long outputs externalised, flattened in order. */
  async externalise(caller: Identity, sessionId: string, turns: NewMessage[][]): Promise<NewMessage[]> {
    if (!this.limits.externalize) return turns.flat();
    const plans = turns.map((t) => planToolOutputs(t.map(partsOf), this.limits));
    if (plans.every((p) => p.length === 0)) return turns.flat();
    let room = this.limits.maxPerSession - (await this.results.count(caller, sessionId));
    const out: NewMessage[] = [];
    for (const [i, turn] of turns.entries()) {
      if (plans[i].length === 0) {
        out.push(...turn);
        continue;
      }
      const ids = turn.map(() => `msg_${randomUUID().replace(/-/g, '')}`);
      const msgs = turn.map((m, j) => ({
        ...m,
        id: ids[j],
        parts: [...partsOf(m)],
        toolResults: [] as NewToolResult[],
      }));
      const groupChars = msgs
        .flatMap((m) => m.parts)
        .reduce(
          (n, p) => n + (p.type === 'tool' && typeof p.tool_output === 'string' ? codePointLength(p.tool_output) : 0),
          0,
        );
      for (const pick of plans[i]) {
        const m = msgs[pick.message];
        const part: MessagePart = { ...m.parts[pick.part] };
        m.parts[pick.part] = part;
        if (room <= 0) {
          part.tool_output_externalization_error =
            `tool result limit reached: this session holds ${this.limits.maxPerSession} ` +
            '(MUNINN_SESSION_TOOL_RESULTS_MAX); the output is kept inline';
          continue;
        }
        room--;
        const output = part.tool_output as string;
        const toolId = typeof part.tool_id === 'string' ? part.tool_id : '';
        const digest = sha256(output);
        // Same call, same output: same id, so a re-sent message does not store the output twice.
        const id = `tr_${sha256(`${toolId}\u0000${digest}`).slice(0, 32)}`;
        const ref = `${toolResultsDir(caller.userId, sessionId)}/${id}`;
        const preview = toolOutputPreview(output, {
          ref,
          originalChars: pick.originalChars,
          previewChars: this.limits.previewChars,
          sha256: digest,
          reason: pick.reason,
        });
        const previewChars = codePointLength(preview);
        Object.assign(part, {
          tool_output: preview,
          tool_output_ref: ref,
          tool_output_truncated: true,
          tool_output_original_chars: pick.originalChars,
          tool_output_preview_chars: previewChars,
          tool_output_sha256: digest,
          tool_output_storage_uri: ref,
          tool_output_group_id: ids[0],
          tool_output_externalized_reason: pick.reason,
          tool_output_group_original_chars: groupChars,
          tool_output_group_budget_chars: this.limits.turnBudgetChars,
        });
        m.toolResults.push({
          id,
          toolId,
          toolName: typeof part.tool_name === 'string' ? part.tool_name : '',
          mimeType: typeof part.tool_output_mime_type === 'string' ? part.tool_output_mime_type : 'text/plain',
          content: output,
          originalChars: pick.originalChars,
          previewChars,
          sha256: digest,
          reason: pick.reason,
        });
      }
      // What is stored inline is what the message costs (pending_tokens) and what extractors read.
      for (const m of msgs) out.push({ ...m, content: messageText(m), tokens: messageTokens(m) });
    }
    return out;
  }
}

const partsOf = (m: NewMessage): MessagePart[] => (m.parts ?? []) as MessagePart[];
