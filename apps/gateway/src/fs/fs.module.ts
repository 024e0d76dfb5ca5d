import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module';
import { GatewayHttpModule } from '../http/http.module';
import { ContentTagsController } from './content-tags.controller';
import { FsController } from './fs.controller';
import { FsService } from './fs.service';

/** The `viking://` tree under `/fs` (and the `/content/set_tags` alias); exports FsService for MCP. */
@Module({
  imports: [ContentModule, GatewayHttpModule],
  controllers: [ContentTagsController, FsController],
  providers: [FsService],
  exports: [FsService],
})
export class FsModule {}
