import { Module } from '@nestjs/common';
import { GatewayHttpModule } from '../http/http.module';
import { SystemModule } from '../system/system.module';
import { ContentController } from './content.controller';
import { ContentService } from './content.service';
import { IndexDispatchModule } from './index-dispatch.module';
import { UploadController } from './upload.controller';
import { UploadService } from './upload.service';

/**
 * Writes, reads, uploads and reindexing under `/content`; exports the content and index services (fs
 * moves and deletes reindex, MCP reads) and uploads (the MCP `add_resource` tool hands out upload links).
 */
@Module({
  imports: [SystemModule, GatewayHttpModule, IndexDispatchModule],
  controllers: [ContentController, UploadController],
  providers: [ContentService, UploadService],
  exports: [ContentService, IndexDispatchModule, UploadService],
})
export class ContentModule {}
