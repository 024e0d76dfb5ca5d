import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { GlobRequestDto, GrepRequestDto } from './dto/scan.dto';
import { ScanService } from './scan.service';

@ApiTags('search')
@ApiErrors(400, 401, 403, 404, 504)
@Controller('api/v1/search')
export class ScanController {
  constructor(private readonly scans: ScanService) {}

  @Post('grep')
  @HttpCode(200)
  @ApiOperation({ summary: 'Lines matching a regex (safe subset) in the files below a URI; runs on the retriever' })
  @ApiOkEnvelope('object')
  grep(@Caller() c: Identity, @Body() b: GrepRequestDto) {
    return this.scans.grep(c, b);
  }

  @Post('glob')
  @HttpCode(200)
  @ApiOperation({ summary: 'URIs whose path below `uri` matches a glob (`*`, `**`, `?`, `[…]`); on the retriever' })
  @ApiOkEnvelope('object')
  glob(@Caller() c: Identity, @Body() b: GlobRequestDto) {
    return this.scans.glob(c, b);
  }
}
