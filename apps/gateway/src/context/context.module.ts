import { Module } from '@nestjs/common';
import { GatewayHttpModule } from '../http/http.module';
import { LedgerModule } from '../ledger/ledger.module';
import { SystemModule } from '../system/system.module';
import { ContextPipelineService } from './context-pipeline.service';
import { ContextSearchService } from './context-search.service';
import { RetrievalFanoutService } from './retrieval-fanout.service';
import { RewriteClientService } from './rewrite-client.service';
import { SessionContextService } from './session-context.service';

/**
 * The context pipeline (docs/contract.md#pipeline): session, rewrite, retrieval fan-out, ledger, assembly; a large
 * search in its account's large-search lane (GatewayHttpModule's AdmissionService).
 * No routes of its own; exports ContextSearchService, the entry for /search context mode, /recall and MCP.
 */
@Module({
  imports: [LedgerModule, SystemModule, GatewayHttpModule],
  providers: [
    ContextSearchService,
    ContextPipelineService,
    SessionContextService,
    RetrievalFanoutService,
    RewriteClientService,
  ],
  exports: [ContextSearchService],
})
export class ContextModule {}
