import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { SessionCommitService } from './session-commit.service';
import { SessionReadService } from './session-read.service';
import { SessionsController } from './sessions.controller';
import { SessionsService } from './sessions.service';
import { TasksController } from './tasks.controller';

/** Sessions, messages, commits and their tasks; exports SessionsService and SessionCommitService for MCP. */
@Module({
  imports: [LedgerModule],
  controllers: [SessionsController, TasksController],
  providers: [SessionsService, SessionCommitService, SessionReadService],
  exports: [SessionsService, SessionCommitService],
})
export class SessionsModule {}
