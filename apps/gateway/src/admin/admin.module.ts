import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LedgerModule } from '../ledger/ledger.module';
import { GatewayHttpModule } from '../http/http.module';
import { SystemModule } from '../system/system.module';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';

/** Accounts, users and keys under `/admin`. Exports nothing. */
@Module({
  imports: [AuthModule, LedgerModule, SystemModule, GatewayHttpModule],
  controllers: [AdminController],
  providers: [AdminService],
})
export class AdminModule {}
