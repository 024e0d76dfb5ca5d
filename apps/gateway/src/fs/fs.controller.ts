import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { DeleteQueryDto, LsEntryDto, LsQueryDto, MkdirDto, StatQueryDto, StatResultDto } from './dto/fs.dto';
import { FsService } from './fs.service';

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

  @Get('stat')
  @ApiOperation({ summary: 'Stat a file or directory' })
  @ApiOkEnvelope(StatResultDto)
  stat(@Caller() c: Identity, @Query() q: StatQueryDto) {
    return this.fs.stat(c, q.uri);
  }

  @Post('mkdir')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a directory and its parents' })
  @ApiOkEnvelope('object')
  @ApiErrors(409)
  mkdir(@Caller() c: Identity, @Body() b: MkdirDto) {
    return this.fs.mkdir(c, b.uri, b.description);
  }

  @Delete()
  @ApiOperation({ summary: 'Delete a file, or a directory with recursive=true; deleting nothing succeeds' })
  @ApiOkEnvelope('object')
  @ApiErrors(412, 504)
  remove(@Caller() c: Identity, @Query() q: DeleteQueryDto) {
    return this.fs.remove(c, q.uri, q.recursive ?? false, q.wait ?? false);
  }
}
