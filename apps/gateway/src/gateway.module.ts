import { IdempotencyModule } from './idempotency/idempotency.module';
import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@app/config';
import { EmbedModule } from '@app/embed';
import { QueueModule } from '@app/queue';
import { StoreModule } from '@app/store';
import { AdminModule } from './admin/admin.module';
import { AuthModule } from './auth/auth.module';
import { ContentModule } from './content/content.module';
import { ContextModule } from './context/context.module';
import { FindModule } from './find/find.module';
import { FsModule } from './fs/fs.module';
import { GatewayHttpModule } from './http/http.module';
import { LedgerModule } from './ledger/ledger.module';
import { McpModule } from './mcp/mcp.module';
import { RecallModule } from './recall/recall.module';
import { ScanModule } from './scan/scan.module';
import { SearchModule } from './search/search.module';
import { SessionsModule } from './sessions/sessions.module';
import { SystemModule } from './system/system.module';
import { TasksModule } from './tasks/tasks.module';

/**
 * The HTTP face: one module per feature folder (docs/architecture.md#gateway-layout). The order of the
 * feature imports is the order of the routes in /openapi.json, which libs/client is generated from.
 */
@Module({})
export class GatewayModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        StoreModule,
        QueueModule.forRoot(config),
        EmbedModule,
        AuthModule,
        GatewayHttpModule,
        IdempotencyModule,
        LedgerModule,
        AdminModule,
        ContentModule,
        FsModule,
        FindModule,
        ContextModule,
        SearchModule,
        ScanModule,
        RecallModule,
        SessionsModule,
        SystemModule,
        McpModule,
        TasksModule,
      ],
    };
  }
}
