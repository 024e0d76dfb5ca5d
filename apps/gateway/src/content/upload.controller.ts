import { Controller, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { KernelError, KernelErrorCode } from '@app/kernel';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { UploadQueryDto } from './dto/upload.dto';
import { WriteResultDto } from './dto/write-result.dto';
import { UploadService } from './upload.service';

/**
 * The upload link of the MCP `add_resource` tool (docs/fs-and-mcp.md, "add_resource"): the token in
 * the query is the credential (the request gate resolved it to the minting caller before the body
 * was read); the multipart field `file` is written at the token's target.
 */
@ApiTags('content')
@Controller('api/v1/resources')
export class UploadController {
  constructor(private readonly uploads: UploadService) {}

  @Post('temp_upload')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Upload the file of an add_resource link (one-shot token; UTF-8 text; indexed automatically)',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } },
  })
  @ApiOkEnvelope(WriteResultDto)
  @ApiErrors(400, 401, 403, 409, 413, 415, 429)
  upload(@Query() q: UploadQueryDto, @Req() req: FastifyRequest) {
    if (!q.token)
      throw new KernelError(
        KernelErrorCode.InvalidArgument,
        'token is required: call the MCP add_resource tool for an upload link (uploads are not kept for a temp_file_id)',
        { field: 'token' },
      );
    return this.uploads.ingest(q.token, req.headers['content-type'] ?? '', req.body as Buffer);
  }
}
