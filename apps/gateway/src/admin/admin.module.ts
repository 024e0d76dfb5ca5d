import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';

/** Accounts, users and keys under `/admin`. Exports nothing. */
@Module({ imports: [LedgerModule], controllers: [AdminController], providers: [AdminService] })
export class AdminModule {}
