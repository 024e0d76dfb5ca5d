import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, KernelError, KernelErrorCode, searchToolResult } from '@app/kernel';
import { SessionRepository, SessionToolResultRepository, ToolResultRecord } from '@app/store';
import { ToolResultListQueryDto, ToolResultReadQueryDto, ToolResultSearchQueryDto } from './dto/tool-results.dto';
import { toolResultQueryBounds } from './tool-results-openapi';

const OFFSET_UNIT = 'unicode_code_point';

const invalid = (field: string, message: string, value?: unknown) =>
  new KernelError(KernelErrorCode.InvalidArgument, message, {
    field,
    ...(value === undefined ? {} : { value: typeof value === 'string' ? value.slice(0, 32) : value }),
  });

/** An integer query parameter within its bound (its default when absent); else 400 naming it. */
function int(raw: unknown, field: string, b: { minimum: number; maximum: number; default: number }): number {
  const { minimum: min, maximum: max } = b;
  if (raw === undefined) return b.default;
  if (typeof raw !== 'number' || !Number.isInteger(raw)) throw invalid(field, `${field} must be an integer`, raw);
  if (raw < min) throw invalid(field, `${field} must be greater than or equal to ${min}`, raw);
  if (raw > max) throw invalid(field, `${field} must be less than or equal to ${max}`, raw);
  return raw;
}

function text(raw: unknown, field: string, max: number): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw invalid(field, `${field} must be a single string`);
  if (raw.length > max) throw invalid(field, `${field} is ${raw.length} characters; at most ${max} are allowed`);
  return raw;
}

/**
 * The tool-result routes (docs/sessions.md "Tool results"): list, read by code-point offsets, and a
 * literal case-insensitive search. Only the caller's own sessions; anything else is 404.
 */
@Injectable()
export class SessionToolResultsService {
  private readonly bounds: ReturnType<typeof toolResultQueryBounds>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sessions: SessionRepository,
    private readonly results: SessionToolResultRepository,
  ) {
    this.bounds = toolResultQueryBounds(config);
  }

  async list(caller: Identity, sessionId: string, q: ToolResultListQueryDto) {
    const b = this.bounds.list;
    const toolName = text(q.tool_name, 'tool_name', b.tool_name.maxLength);
    const limit = int(q.limit, 'limit', b.limit);
    await this.session(caller, sessionId);
    const rows = await this.results.list(caller, sessionId, { toolName, limit });
    return {
      tool_results: rows.map((r) => ({
        tool_result_id: r.tool_result_id,
        tool_name: r.tool_name,
        original_chars: r.original_chars,
        preview_chars: r.preview_chars,
        mime_type: r.mime_type,
        synopsis_kind: 'head',
        storage_uri: r.storage_uri,
        offset_unit: OFFSET_UNIT,
      })),
    };
  }

  async read(caller: Identity, sessionId: string, id: string, q: ToolResultReadQueryDto) {
    const b = this.bounds.read;
    const offset = int(q.offset, 'offset', b.offset);
    const limit = int(q.limit, 'limit', b.limit);
    const includeMetadata = q.include_metadata ?? b.include_metadata.default;
    if (typeof includeMetadata !== 'boolean') throw invalid('include_metadata', 'include_metadata must be a boolean');
    await this.session(caller, sessionId);
    const r = await this.results.read(caller, sessionId, id, offset, limit === -1 ? null : limit);
    if (!r) throw notFound(id);
    const returned = [...r.content].length;
    return {
      tool_result_id: id,
      content: r.content,
      offset,
      limit,
      offset_unit: OFFSET_UNIT,
      total_chars: r.total,
      has_more: offset + returned < r.total,
      ...(includeMetadata ? { metadata: metadata(r.record) } : {}),
    };
  }

  async search(caller: Identity, sessionId: string, id: string, q: ToolResultSearchQueryDto) {
    const b = this.bounds.search;
    const query = text(q.q, 'q', b.q.maxLength);
    if (!query) throw invalid('q', 'q is required and must not be empty');
    const limit = int(q.limit, 'limit', b.limit);
    const contextChars = int(q.context_chars, 'context_chars', b.context_chars);
    await this.session(caller, sessionId);
    const r = await this.results.read(caller, sessionId, id, 0, null);
    if (!r) throw notFound(id);
    const matches = searchToolResult(r.content, query, { limit, contextChars });
    return {
      tool_result_id: id,
      matches: matches.map((m) => ({ offset: m.offset, offset_unit: OFFSET_UNIT, snippet: m.snippet })),
    };
  }

  private async session(caller: Identity, sessionId: string): Promise<void> {
    if (!(await this.sessions.find(caller, sessionId)))
      throw new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, {
        type: 'session',
        resource: sessionId,
      });
  }
}

const notFound = (id: string) =>
  new KernelError(KernelErrorCode.NotFound, `Tool result not found: ${id}`, { type: 'tool_result', resource: id });

function metadata(r: ToolResultRecord) {
  return {
    tool_id: r.tool_id,
    tool_name: r.tool_name,
    message_id: r.message_id,
    mime_type: r.mime_type,
    original_chars: r.original_chars,
    preview_chars: r.preview_chars,
    sha256: r.sha256,
    externalized_reason: r.reason,
    storage_uri: r.storage_uri,
    created_at: r.created_at,
  };
}
