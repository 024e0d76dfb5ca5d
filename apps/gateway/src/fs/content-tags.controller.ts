import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { SetTagsDto } from './dto/fs.dto';
import { FsService } from './fs.service';
import { Idempotent } from '../idempotency/idempotency.interceptor';

/**
 * `POST /api/v1/content/set_tags`, the content-path alias of `/fs/attrs/set_tags`. It lives with fs (which
 * owns tags) so the content module need not import fs, which already imports content.
 */
@ApiTags('content')
@ApiErrors(400, 401, 403, 404, 413)
@Controller('api/v1/content')
export class ContentTagsController {
  constructor(private readonly fs: FsService) {}

  @Post('set_tags')
  @Idempotent()
  @HttpCode(200)
  // The published operationId predates this controller; generated clients name the operation by it.
  @ApiOperation({ operationId: 'ContentController_setTags', summary: 'Same as POST /api/v1/fs/attrs/set_tags' })
  @ApiOkEnvelope('object')
  setTags(@Caller() c: Identity, @Body() b: SetTagsDto) {
    return this.fs.setTags(c, b);
  }
}
