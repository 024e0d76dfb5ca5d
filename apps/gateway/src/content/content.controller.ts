import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { RawResponse } from '../http/raw-response.decorator';
import { ContentService } from './content.service';
import { ReadQueryDto, UriQueryDto } from './dto/read.dto';
import { ReindexDto } from './dto/reindex.dto';
import { BatchWriteResultDto, WriteResultDto } from './dto/write-result.dto';
import { BatchWriteDto, WriteContentDto } from './dto/write.dto';
import { Idempotent } from '../idempotency/idempotency.interceptor';

@ApiTags('content')
@ApiErrors(400, 401, 403, 404, 413)
@Controller('api/v1/content')
export class ContentController {
  constructor(private readonly content: ContentService) {}

  @Post('write')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Write a file (create, replace or append); indexing follows, `wait` waits for it' })
  @ApiOkEnvelope(WriteResultDto)
  @ApiErrors(409, 429, 504)
  write(@Caller() c: Identity, @Body() b: WriteContentDto) {
    return this.content.write(c, b);
  }

  @Post('batch-write')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Write up to 256 files under one directory in one transaction (all or none)' })
  @ApiOkEnvelope(BatchWriteResultDto)
  @ApiErrors(409, 429, 504)
  batchWrite(@Caller() c: Identity, @Body() b: BatchWriteDto) {
    return this.content.batchWrite(c, b);
  }

  @Post('reindex')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Re-index a node or subtree with the current embedder (after switching embedders)' })
  @ApiOkEnvelope('object')
  @ApiErrors(409, 504)
  reindex(@Caller() c: Identity, @Body() b: ReindexDto) {
    return this.content.reindex(c, b);
  }

  @Get('read')
  @ApiOperation({ summary: 'Read a file (memory files without their MEMORY_FIELDS trailer unless raw)' })
  @ApiOkEnvelope('string')
  read(@Caller() c: Identity, @Query() q: ReadQueryDto) {
    return this.content.read(c, q);
  }

  @Get('abstract')
  @ApiOperation({ summary: "A directory's abstract (L0, `.abstract.md`); a file URI means its directory" })
  @ApiOkEnvelope('string')
  abstract(@Caller() c: Identity, @Query() q: UriQueryDto) {
    return this.content.sidecar(c, q.uri, 'abstract');
  }

  @Get('overview')
  @ApiOperation({ summary: "A directory's overview (L1, `.overview.md`); a file URI means its directory" })
  @ApiOkEnvelope('string')
  overview(@Caller() c: Identity, @Query() q: UriQueryDto) {
    return this.content.sidecar(c, q.uri, 'overview');
  }

  @Get('download')
  @RawResponse()
  @ApiProduces('application/octet-stream')
  @ApiOperation({ summary: 'The stored bytes of a file as an attachment (no envelope)' })
  async download(@Caller() c: Identity, @Query() q: UriQueryDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const { name, bytes } = await this.content.download(c, q.uri);
    void reply.header('content-type', 'application/octet-stream');
    void reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`);
    return bytes;
  }
}
