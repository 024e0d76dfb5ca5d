import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Identity } from '@app/kernel';
import { AdmissionService } from '../http/admission.service';
import { DomainExceptionFilter } from '../http/domain-exception.filter';
import { ContextSearchService, SearchEnvelope } from '../search/context-search.service';
import { wantsContext } from '../search/context-request.parser';
import { FindService } from '../search/find.service';
import { McpReadService } from './mcp-read.service';
import { findToolBody, recallToolBody, searchToolBody } from './tool-bodies';
import { FIND_TOOL_SHAPE, READ_TOOL_SHAPE, RECALL_TOOL_SHAPE, SEARCH_TOOL_SHAPE } from './tool-schemas';
import { contextText, listText, NO_CONTEXT_TEXT, NO_RECALL_TEXT } from './tool-text';

const SERVER_INFO = { name: 'muninn', version: '0.1.0' };

/**
 * The MCP tools (§12) for one authenticated caller. Each tool builds the body of the REST route it
 * mirrors and calls that route's service, so the answer is the route's answer for the same request.
 */
@Injectable()
export class McpToolsService {
  private readonly errors = new DomainExceptionFilter();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly finder: FindService,
    private readonly context: ContextSearchService,
    private readonly reader: McpReadService,
    private readonly admission: AdmissionService,
  ) {}

  /** A fresh server with every tool bound to `caller` (stateless transport: one per request). */
  createServer(caller: Identity): McpServer {
    const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} } });
    server.registerTool(
      'search',
      {
        description:
          'Search memories, resources and skills. mode="list" returns ranked hits; mode="context" returns one bounded, ' +
          'deduplicated context block ready to use (digest, else rendered <memory> elements). Use read to expand a URI.',
        inputSchema: SEARCH_TOOL_SHAPE,
      },
      (args) =>
        this.answer(caller, async () => {
          const body = searchToolBody(args);
          if (!wantsContext(body)) return listAnswer(await this.finder.list(caller, body));
          return contextAnswer(await this.context.search(caller, body), NO_CONTEXT_TEXT);
        }),
    );
    server.registerTool(
      'find',
      {
        description: 'Fast stateless retrieval: ranked memories, resources and skills with URI, abstract and score.',
        inputSchema: FIND_TOOL_SHAPE,
      },
      (args) => this.answer(caller, async () => listAnswer(await this.finder.find(caller, findToolBody(args)))),
    );
    server.registerTool(
      'read',
      {
        description: 'Read any viking:// URI that a search entry or hit carries, at abstract, overview or full detail.',
        inputSchema: READ_TOOL_SHAPE,
      },
      (args) =>
        this.answer(caller, async () => {
          const read = await this.reader.read(caller, args.uri, args.level ?? 'full');
          return { content: [{ type: 'text', text: read.text || `(nothing at ${read.level} detail for ${read.uri})` }], structuredContent: { ...read } };
        }),
    );
    server.registerTool(
      'recall',
      {
        description: 'Deprecated (use search with mode="context"): recall memories for the current turn with the v1 preset.',
        inputSchema: RECALL_TOOL_SHAPE,
      },
      (args) => this.answer(caller, async () => contextAnswer(await this.context.recall(caller, recallToolBody(args)), NO_RECALL_TEXT)),
    );
    return server;
  }

  /**
   * Runs a tool in one of the caller's account slots (each call of a JSON-RPC batch takes its own, as
   * each REST request does; docs/limits-and-security.md, "Rate limits and fairness"). A domain error
   * becomes a tool error carrying the message the REST route would give.
   */
  private async answer(caller: Identity, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
    let release: (() => void) | null = null;
    try {
      release = await this.admission.enter(caller, this.config.queues.requestDeadlineMs);
      return await run();
    } catch (err) {
      const { body } = this.errors.render(err);
      const message = (body as { error?: { message?: string } }).error?.message ?? 'Internal server error';
      return { isError: true, content: [{ type: 'text', text: message }] };
    } finally {
      release?.();
    }
  }
}

function listAnswer(envelope: SearchEnvelope): CallToolResult {
  const result = envelope.result as Record<string, unknown>;
  return { content: [{ type: 'text', text: listText(result) }], structuredContent: result };
}

function contextAnswer(envelope: SearchEnvelope, fallback: string): CallToolResult {
  const result = envelope.result as Record<string, unknown>;
  return { content: [{ type: 'text', text: contextText(result, fallback) }], structuredContent: result };
}
