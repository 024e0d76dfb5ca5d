import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import {
  DeleteQueryDto,
  LsEntryDto,
  LsQueryDto,
  MkdirDto,
  MvDto,
  SetTagsDto,
  StatQueryDto,
  StatResultDto,
  TreeQueryDto,
} from './dto/fs.dto';
import { FsService } from './fs.service';
import { Idempotent } from '../idempotency/idempotency.interceptor';

@ApiTags('fs')
@ApiErrors(400, 401, 403, 404)
@Controller('api/v1/fs')
export class FsController {
  constructor(private readonly fs: FsService) {}

  @Get('ls')
  @ApiOperation({ summary: 'List a directory (agent format: uri, size, isDir, modTime, abstract)' })
  @ApiOkEnvelope([LsEntryDto])
  ls(@Caller() c: Identity, @Query() q: LsQueryDto) {
    return this.fs.ls(c, q);
  }

  @Get('tree')
  @ApiOperation({
    summary: 'Depth-first tree below a directory (directories first at each level; level_limit, node_limit)',
  })
  @ApiOkEnvelope([LsEntryDto])
  tree(@Caller() c: Identity, @Query() q: TreeQueryDto) {
    return this.fs.tree(c, q);
  }

  @Get('attrs')
  @ApiOperation({ summary: 'Retrieval tags of a node and, for memory files, their MEMORY_FIELDS metadata' })
  @ApiOkEnvelope('object')
  attrs(@Caller() c: Identity, @Query() q: StatQueryDto) {
    return this.fs.attrs(c, q.uri);
  }

  @Post('attrs/set_tags')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace or extend the k=v retrieval tags of a node (or its subtree)' })
  @ApiOkEnvelope('object')
  setTags(@Caller() c: Identity, @Body() b: SetTagsDto) {
    return this.fs.setTags(c, b);
  }

  @Post('mv')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Move a file or directory; its index follows' })
  @ApiOkEnvelope('object')
  @ApiErrors(409, 413)
  mv(@Caller() c: Identity, @Body() b: MvDto) {
    return this.fs.mv(c, b.from_uri, b.to_uri);
  }

  @Get('stat')
  @ApiOperation({ summary: 'Stat a file or directory' })
  @ApiOkEnvelope(StatResultDto)
  stat(@Caller() c: Identity, @Query() q: StatQueryDto) {
    return this.fs.stat(c, q.uri);
  }

  @Post('mkdir')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a directory and its parents' })
  @ApiOkEnvelope('object')
  @ApiErrors(409, 413, 429)
  mkdir(@Caller() c: Identity, @Body() b: MkdirDto) {
    return this.fs.mkdir(c, b.uri, b.description);
  }

  @Delete()
  @Idempotent()
  @ApiOperation({ summary: 'Delete a file, or a directory with recursive=true; deleting nothing succeeds' })
  @ApiOkEnvelope('object')
  @ApiErrors(412, 504)
  remove(@Caller() c: Identity, @Query() q: DeleteQueryDto) {
    return this.fs.remove(c, q.uri, q.recursive ?? false, q.wait ?? false);
  }
}
