import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Identity, isContextRequest } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { RawResponse } from '../http/raw-response.decorator';
import { ContextSearchService } from '../context/context-search.service';
import { ContextSearchRequestDto } from '../context/dto/context-request.dto';
import { ContextEnvelopeDto } from '../context/dto/context-response.dto';
import { SearchListRequestDto } from '../find/dto/find-request.dto';
import { FindEnvelopeDto } from '../find/dto/find-response.dto';
import { FindService } from '../find/find.service';

/**
 * `/search`: list mode is the find primitive, context mode runs the context pipeline. It answers raw so an
 * optional `telemetry` sits beside `result`.
 */
@ApiTags('search')
@ApiErrors(400, 401, 403, 503, 504)
@Controller('api/v1/search')
export class SearchController {
  constructor(
    private readonly finder: FindService,
    private readonly context: ContextSearchService,
  ) {}

  @Post('search')
  @HttpCode(200)
  @RawResponse()
  // The published operationId predates this controller; generated clients name the operation by it.
  @ApiOperation({
    operationId: 'FindController_search',
    summary: 'Search: list mode (default) is /find byte for byte; mode="context" assembles a bounded context block',
    description: 'Context-only fields (max_tokens, quotas, purpose, detail, …) require mode="context".',
  })
  @ApiExtraModels(SearchListRequestDto, ContextSearchRequestDto, FindEnvelopeDto, ContextEnvelopeDto)
  @ApiBody({
    schema: {
      oneOf: [{ $ref: getSchemaPath(SearchListRequestDto) }, { $ref: getSchemaPath(ContextSearchRequestDto) }],
    },
  })
  @ApiOkResponse({
    description:
      'List mode: the /find envelope. Context mode: `{"status":"ok","result":{entries, rendered, digest, stats}}`.',
    schema: { oneOf: [{ $ref: getSchemaPath(FindEnvelopeDto) }, { $ref: getSchemaPath(ContextEnvelopeDto) }] },
  })
  search(@Caller() caller: Identity, @Body() body: unknown) {
    return isContextRequest(body) ? this.context.search(caller, body) : this.finder.list(caller, body);
  }
}
