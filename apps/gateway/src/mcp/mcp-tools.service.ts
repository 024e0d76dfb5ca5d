import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, invalidArgument } from '@app/kernel';
import { whileClientStays } from '@app/queue';
import { ContentService } from '../content/content.service';
import { UploadService } from '../content/upload.service';
import { FsService } from '../fs/fs.service';
import { AdmissionService } from '../http/admission.service';
import { boundsIssue } from '../http/request-bounds';
import { DomainExceptionFilter, limitOf } from '../http/domain-exception.filter';
import { ContextSearchService } from '../context/context-search.service';
import { FindService } from '../find/find.service';
import { ScanService } from '../scan/scan.service';
import { SessionCommitService } from '../sessions/session-commit.service';
import { SessionsService } from '../sessions/sessions.service';
import { HealthService } from '../system/health.service';
import { MetricsService } from '../system/metrics.service';
import { McpIdempotency, ToolAnswer } from './mcp-idempotency';
import { McpReadService } from './mcp-read.service';
import type { McpTool, ToolContext, ToolDeps, ToolOutput } from './mcp-tool';
import { Args, readArgs } from './tool-args';
import { toolListing } from './tool-listing';
import { MCP_TOOLS } from './tool-table';

const SERVER_INFO = { name: 'muninn', version: '0.1.0' };

/**
 * The MCP tools for one authenticated caller, registered from one table (tool-table.ts). Each tool
 * calls the service of the REST route it mirrors, so its answer is the route's answer.
 */
@Injectable()
export class McpToolsService {
  private readonly errors = new DomainExceptionFilter();
  private readonly deps: ToolDeps;
  private readonly byName = new Map(MCP_TOOLS.map((t) => [t.name, t]));
  private readonly listing: Tool[];

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    finder: FindService,
    context: ContextSearchService,
    reader: McpReadService,
    content: ContentService,
    fs: FsService,
    scans: ScanService,
    health: HealthService,
    sessions: SessionsService,
    commits: SessionCommitService,
    uploads: UploadService,
    private readonly admission: AdmissionService,
    private readonly metrics: MetricsService,
    private readonly idempotency: McpIdempotency,
  ) {
    const charge = (caller: Identity, points: number) => admission.consume(caller, points);
    this.listing = toolListing(config);
    this.deps = { config, finder, context, reader, content, fs, scans, health, sessions, commits, uploads, charge };
  }

  /** A fresh server bound to `caller` (stateless transport: one per request). */
  createServer(caller: Identity, ctx: ToolContext): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.listing }));
    server.setRequestHandler(CallToolRequestSchema, (req) =>
      this.call(caller, req.params.name, req.params.arguments, ctx, req.params._meta),
    );
    return server;
  }

  /**
   * Runs one tool; failures become `isError` results, never JSON-RPC errors or HTTP statuses. A writing tool
   * called with an idempotency key in `_meta` runs at most once per caller and key (mcp-idempotency.ts).
   */
  async call(
    caller: Identity,
    name: string,
    rawArgs: unknown,
    ctx: ToolContext,
    meta?: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const tool = this.byName.get(name);
    if (!tool) return errorResult(`Unknown tool: ${name}`);
    // Each call (each message of a JSON-RPC batch) takes its own slot of the caller's account, as each
    // REST request does (docs/limits-and-security.md, "Rate limits and fairness").
    let release: (() => void) | null = null;
    try {
      // A read leaves its account's line when its client goes away; a write runs to its end, as over REST.
      const gone = tool.readOnly ? ctx.abandoned : undefined;
      release = await this.admission.enter(caller, this.deps.config.queues.requestDeadlineMs, gone);
      const args = readArgs(rawArgs, tool.props, tool.required ?? [], this.checkParsed);
      const key = tool.readOnly ? undefined : this.idempotency.keyOf(meta);
      const run = () => this.answer(tool, caller, args, ctx);
      if (key === undefined) return (await run()).result;
      const resumed = tool.resumed;
      return await this.idempotency.run(caller, key, name, args, run, resumed && ((a) => toResult(resumed(a))));
    } catch (err) {
      return this.failure(name, err).result;
    } finally {
      release?.();
    }
  }

  /** The request gate's checks on an argument the gate saw as a string (tool-args.ts). */
  private readonly checkParsed = (name: string, value: unknown): void => {
    const issue = boundsIssue({ [name]: value }, 'body', '/mcp', this.deps.config.limits);
    if (!issue) return;
    const field = issue.loc.slice(1).join('.');
    throw invalidArgument(`${field}: ${issue.message}`, { field });
  };

  /** The tool's result, with the status its REST route would have answered. */
  private async answer(tool: McpTool, caller: Identity, args: Args, ctx: ToolContext): Promise<ToolAnswer> {
    try {
      const run = () => tool.run(caller, args, this.deps, ctx);
      const out = await (tool.readOnly && ctx.abandoned ? whileClientStays(ctx.abandoned, run) : run());
      const result = toResult(out);
      // A failure the tool answers as text (its contract) changed nothing: a retry runs again.
      return { result, status: result.isError ? 400 : 200 };
    } catch (err) {
      return this.failure(tool.name, err);
    }
  }

  private failure(name: string, err: unknown): ToolAnswer {
    const { status, body } = this.errors.render(err);
    // A refusal at a named limit is counted like an HTTP one, though the call answers a tool error.
    const limit = limitOf(err);
    if (limit) this.metrics.refused(limit, status);
    return { status, result: errorResult(`Error executing tool ${name}: ${toolMessage(err, body)}`) };
  }
}

/** The message a failed tool call answers: the envelope's, or a plain argument check's own. */
function toolMessage(err: unknown, body: unknown): string {
  const fromBody = (body as { error?: { message?: string } }).error?.message;
  if (fromBody && fromBody !== 'Internal server error') return fromBody;
  // A plain Error thrown by a tool's own argument check carries its message; anything else stays opaque.
  const plain = err instanceof Error && !(err as { code?: unknown }).code;
  return plain ? err.message : (fromBody ?? 'Internal server error');
}

function toResult(out: ToolOutput): CallToolResult {
  if (typeof out === 'string') return { content: [{ type: 'text', text: out }], structuredContent: { result: out } };
  return {
    content: [{ type: 'text', text: out.text }],
    structuredContent: out.structured ?? { result: out.text },
    ...(out.isError ? { isError: true } : {}),
  };
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

export type { McpTool };
