import { Module } from '@nestjs/common';
import { GatewayHttpModule } from '../http/http.module';
import { ScanController } from './scan.controller';
import { ScanService } from './scan.service';

/** `/grep` and `/glob`, run on the retriever; exports ScanService for MCP. */
@Module({
  imports: [GatewayHttpModule],
  controllers: [ScanController],
  providers: [ScanService],
  exports: [ScanService],
})
export class ScanModule {}
