import { Module } from '@nestjs/common';
import { FindController } from './find.controller';
import { FindService } from './find.service';
import { ImageInputService } from './image-input.service';

/** Stateless retrieval (`/find`); exports the find primitive (list mode of /search, MCP) and image input (context). */
@Module({
  controllers: [FindController],
  providers: [FindService, ImageInputService],
  exports: [FindService, ImageInputService],
})
export class FindModule {}
