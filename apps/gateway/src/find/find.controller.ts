import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { RawResponse } from '../http/raw-response.decorator';
import { FindRequestDto } from './dto/find-request.dto';
import { FindEnvelopeDto } from './dto/find-response.dto';
import { FindService } from './find.service';

/** `/find`, stateless retrieval. It answers raw so an optional `telemetry` sits beside `result`. */
@ApiTags('search')
@ApiErrors(400, 401, 403, 503, 504)
@Controller('api/v1/search')
export class FindController {
  constructor(private readonly finder: FindService) {}

  @Post('find')
  @HttpCode(200)
  @RawResponse()
  @ApiOperation({ summary: 'Stateless hybrid retrieval: hits in memories/resources/skills, each sorted by score' })
  @ApiBody({ type: FindRequestDto })
  @ApiOkResponse({ type: FindEnvelopeDto })
  find(@Caller() caller: Identity, @Body() body: unknown) {
    return this.finder.find(caller, body);
  }
}
