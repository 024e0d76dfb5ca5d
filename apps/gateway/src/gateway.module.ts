import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { AppConfig, ConfigModule } from '@app/config';
import { EmbedModule } from '@app/embed';
import { QueueModule } from '@app/queue';
import { StoreModule } from '@app/store';
import { AdminController } from './admin/admin.controller';
import { AdminService } from './admin/admin.service';
import { AuthGuard } from './auth/auth.guard';
import { IdentityService } from './auth/identity.service';
import { KeyCacheService } from './auth/key-cache.service';
import { ContentController } from './content/content.controller';
import { ContentService } from './content/content.service';
import { IndexDispatchService } from './content/index-dispatch.service';
import { FsController } from './fs/fs.controller';
import { FsService } from './fs/fs.service';
import { AdmissionService } from './http/admission.service';
import { EnvelopeInterceptor } from './http/envelope.interceptor';
import { McpController } from './mcp/mcp.controller';
import { McpReadService } from './mcp/mcp-read.service';
import { McpToolsService } from './mcp/mcp-tools.service';
import { ContextPipelineService } from './search/context-pipeline.service';
import { ContextSearchService } from './search/context-search.service';
import { DedupLedgerService } from './search/dedup-ledger.service';
import { RecallController } from './search/recall.controller';
import { RetrievalFanoutService } from './search/retrieval-fanout.service';
import { RewriteClientService } from './search/rewrite-client.service';
import { SessionContextService } from './search/session-context.service';
import { FindController } from './search/find.controller';
import { FindService } from './search/find.service';
import { ScanController } from './search/scan.controller';
import { ScanService } from './search/scan.service';
import { ImageInputService } from './search/image-input.service';
import { SessionsController } from './sessions/sessions.controller';
import { SessionsService } from './sessions/sessions.service';
import { SessionCommitService } from './sessions/session-commit.service';
import { SessionReadService } from './sessions/session-read.service';
import { TasksController } from './sessions/tasks.controller';
import { HealthService } from './system/health.service';
import { MetricsService } from './system/metrics.service';
import { StageMetricsService } from './system/stage-metrics.service';
import { QueueWaitService } from './system/queue-wait.service';
import { SystemController } from './system/system.controller';

/** The HTTP face: auth, validation, content, sessions, admin, system routes. */
@Module({})
export class GatewayModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [ConfigModule.forRoot(config), StoreModule, QueueModule.forRoot(config), EmbedModule],
      controllers: [
        AdminController,
        ContentController,
        FsController,
        FindController,
        ScanController,
        RecallController,
        SessionsController,
        SystemController,
        McpController,
        TasksController,
      ],
      providers: [
        IdentityService,
        KeyCacheService,
        AdminService,
        ContentService,
        IndexDispatchService,
        FsService,
        SessionsService,
        SessionCommitService,
        SessionReadService,
        FindService,
        ScanService,
        ImageInputService,
        ContextSearchService,
        ContextPipelineService,
        SessionContextService,
        DedupLedgerService,
        RetrievalFanoutService,
        RewriteClientService,
        HealthService,
        MetricsService,
        StageMetricsService,
        QueueWaitService,
        McpToolsService,
        McpReadService,
        AdmissionService,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
      ],
    };
  }
}
