import { Module } from '@nestjs/common';
import { ContentController } from './content.controller';
import { ContentService } from './content.service';
import { IndexDispatchService } from './index-dispatch.service';

/** Writes, reads and reindexing under `/content`; exports both services (fs moves and deletes reindex, MCP reads). */
@Module({
  controllers: [ContentController],
  providers: [ContentService, IndexDispatchService],
  exports: [ContentService, IndexDispatchService],
})
export class ContentModule {}
