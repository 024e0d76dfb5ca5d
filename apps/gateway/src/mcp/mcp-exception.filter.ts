import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainExceptionFilter } from '../http/domain-exception.filter';

/**
 * Errors before the MCP transport takes over (authentication, a bad actor header) keep the REST
 * status and message, in a JSON-RPC error body an MCP client can read.
 */
@Catch()
export class McpExceptionFilter implements ExceptionFilter {
  private readonly domain = new DomainExceptionFilter();

  catch(exception: unknown, host: ArgumentsHost) {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (reply.sent) return;
    void this.domain.reply(reply, '/mcp', exception);
  }
}
