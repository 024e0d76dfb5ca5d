import { Controller, Delete, Get, HttpCode, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { RawResponse } from '../http/raw-response.decorator';
import { abandonSignal } from '../http/request-id';
import { boundRawSend } from '../http/slow-clients';
import { McpExceptionFilter } from './mcp-exception.filter';
import { McpToolsService } from './mcp-tools.service';
import { requestOrigin } from './request-origin';

const METHOD_NOT_ALLOWED = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless (POST only).' },
};

/**
 * MCP over streamable HTTP (docs/fs-and-mcp.md, "Transport"), stateless: one server and transport per POST. The global auth
 * guard has resolved the caller exactly as for REST routes before the transport sees the request.
 */
@ApiExcludeController()
@UseFilters(McpExceptionFilter)
@Controller('mcp')
export class McpController {
  constructor(
    private readonly tools: McpToolsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @RawResponse()
  async post(@Caller() caller: Identity, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const calls = Array.isArray(req.body) ? req.body.length : 1;
    const server = this.tools.createServer(caller, {
      origin: requestOrigin(req),
      abandoned: abandonSignal(reply.raw, calls),
    });
    // SSE answers, as the reference's server sends (docs/fs-and-mcp.md, "Transport"): one `message` event per
    // JSON-RPC response, then the stream ends. The proxies and the SDK's client read SSE and plain JSON alike.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    reply.hijack(); // the SDK writes the raw Node response itself
    // Fastify's onSend hook, which bounds a stalled client's send, does not run for a hijacked reply.
    boundRawSend(reply.raw, this.config.http.sendIdleMs);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  }

  @Get()
  @HttpCode(405)
  @RawResponse()
  get() {
    return METHOD_NOT_ALLOWED;
  }

  @Delete()
  @HttpCode(405)
  @RawResponse()
  remove() {
    return METHOD_NOT_ALLOWED;
  }
}
