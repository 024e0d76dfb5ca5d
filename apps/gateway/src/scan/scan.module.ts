import { Module } from '@nestjs/common';
import { ScanController } from './scan.controller';
import { ScanService } from './scan.service';

/** `/grep` and `/glob`, run on the retriever; exports ScanService for MCP. */
@Module({ controllers: [ScanController], providers: [ScanService], exports: [ScanService] })
export class ScanModule {}
