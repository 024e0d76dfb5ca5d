import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { ContextModule } from '../context/context.module';
import { IndexDispatchModule } from '../content/index-dispatch.module';
import { FindModule } from '../find/find.module';
import { FsModule } from '../fs/fs.module';
import { GatewayHttpModule } from '../http/http.module';
import { ScanModule } from '../scan/scan.module';
import { SessionsModule } from '../sessions/sessions.module';
import { SystemModule } from '../system/system.module';
import { McpReadService } from './mcp-read.service';
import { McpIdempotency } from './mcp-idempotency';
import { McpToolsService } from './mcp-tools.service';
import { McpController } from './mcp.controller';

/** The MCP endpoint: every tool calls the service of the feature it fronts, so it imports them all. Exports nothing. */
@Module({
  imports: [
    ContentModule,
    IndexDispatchModule,
    FsModule,
    FindModule,
    ContextModule,
    ScanModule,
    SessionsModule,
    SystemModule,
    GatewayHttpModule,
  ],
  controllers: [McpController],
  providers: [McpToolsService, McpReadService, McpIdempotency],
})
export class McpModule {}
