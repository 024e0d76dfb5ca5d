import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgerModule } from '../ledger/ledger.module';
import { GatewayHttpModule } from '../http/http.module';
import { SystemModule } from '../system/system.module';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { AccountExportService } from './account-export.service';
import { AccountImportService } from './account-import.service';
import { ImportSweepService } from './import-sweep.service';
import { ContentModule } from '../content/content.module';

/** Accounts, users and keys under `/admin`. Exports nothing. */
@Module({
  imports: [AuthModule, LedgerModule, SystemModule, GatewayHttpModule, ContentModule],
  controllers: [AdminController],
  providers: [AdminService, AccountExportService, AccountImportService, ImportSweepService],
})
export class AdminModule {}
