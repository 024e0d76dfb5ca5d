import { Module } from '@nestjs/common';
import { GatewayHttpModule } from '../http/http.module';
import { FindController } from './find.controller';
import { FindService } from './find.service';

/** Stateless retrieval (`/find`); exports the find primitive (list mode of /search, MCP). */
@Module({
  imports: [GatewayHttpModule],
  controllers: [FindController],
  providers: [FindService],
  exports: [FindService],
})
export class FindModule {}
