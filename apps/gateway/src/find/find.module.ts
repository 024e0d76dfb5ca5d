import { Module } from '@nestjs/common';
import { FindController } from './find.controller';
import { FindService } from './find.service';

/** Stateless retrieval (`/find`); exports the find primitive (list mode of /search, MCP). */
@Module({
  controllers: [FindController],
  providers: [FindService],
  exports: [FindService],
})
export class FindModule {}
