import { Module } from '@nestjs/common';
import { GatewayHttpModule } from '../http/http.module';
import { LedgerModule } from '../ledger/ledger.module';
import { SessionCommitService } from './session-commit.service';
import { SessionReadService } from './session-read.service';
import { SessionUsageService } from './session-usage.service';
import { SessionToolResultsController } from './session-tool-results.controller';
import { SessionToolResultsService } from './session-tool-results.service';
import { ToolOutputService } from './tool-output.service';
import { SessionsController } from './sessions.controller';
import { SessionsService } from './sessions.service';

/** Sessions, messages and commits; exports SessionsService and SessionCommitService for MCP. */
@Module({
  imports: [LedgerModule, GatewayHttpModule],
  controllers: [SessionsController, SessionToolResultsController],
  providers: [
    SessionsService,
    SessionCommitService,
    SessionReadService,
    SessionUsageService,
    SessionToolResultsService,
    ToolOutputService,
  ],
  exports: [SessionsService, SessionCommitService],
})
export class SessionsModule {}
