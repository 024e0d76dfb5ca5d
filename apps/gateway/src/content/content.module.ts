import { Module } from '@nestjs/common';
import { SystemModule } from '../system/system.module';
import { ContentController } from './content.controller';
import { ContentService } from './content.service';
import { IndexBacklogService } from './index-backlog.service';
import { IndexDispatchService } from './index-dispatch.service';
import { UploadController } from './upload.controller';
import { UploadService } from './upload.service';

/**
 * Writes, reads, uploads and reindexing under `/content`; exports the content and index services (fs
 * moves and deletes reindex, MCP reads) and uploads (the MCP `add_resource` tool hands out upload links).
 */
@Module({
  imports: [SystemModule],
  controllers: [ContentController, UploadController],
  providers: [ContentService, IndexBacklogService, IndexDispatchService, UploadService],
  exports: [ContentService, IndexBacklogService, IndexDispatchService, UploadService],
})
export class ContentModule {}
