import { Module } from '@nestjs/common';
import { GatewayHttpModule } from '../http/http.module';
import { SystemModule } from '../system/system.module';
import { ContentController } from './content.controller';
import { ContentService } from './content.service';
import { IndexDispatchService } from './index-dispatch.service';
import { UploadController } from './upload.controller';
import { UploadService } from './upload.service';

/**
 * Writes, reads, uploads and reindexing under `/content`; exports the content and index services (fs
 * moves and deletes reindex, MCP reads) and uploads (the MCP `add_resource` tool hands out upload links).
 */
@Module({
  imports: [SystemModule, GatewayHttpModule],
  controllers: [ContentController, UploadController],
  providers: [ContentService, IndexDispatchService, UploadService],
  exports: [ContentService, IndexDispatchService, UploadService],
})
export class ContentModule {}
