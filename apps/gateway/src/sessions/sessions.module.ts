import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { SessionCommitService } from './session-commit.service';
import { SessionReadService } from './session-read.service';
import { SessionsController } from './sessions.controller';
import { SessionsService } from './sessions.service';

/** Sessions, messages and commits; exports SessionsService and SessionCommitService for MCP. */
@Module({
  imports: [LedgerModule],
  controllers: [SessionsController],
  providers: [SessionsService, SessionCommitService, SessionReadService],
  exports: [SessionsService, SessionCommitService],
})
export class SessionsModule {}
