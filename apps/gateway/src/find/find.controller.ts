import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { contextOnlyFieldsPresent, Identity, isPlainObject } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { RawResponse } from '../http/raw-response.decorator';
import { ContextSearchService } from '../context/context-search.service';
import { ContextSearchRequestDto } from '../context/dto/context-request.dto';
import { ContextEnvelopeDto } from '../context/dto/context-response.dto';
import { FindRequestDto, SearchListRequestDto } from './dto/find-request.dto';
import { FindEnvelopeDto } from './dto/find-response.dto';
import { FindService } from './find.service';

/** The retrieval routes. Both answer raw envelopes so an optional `telemetry` sits beside `result`. */
@ApiTags('search')
@ApiErrors(400, 401, 403, 503, 504)
@Controller('api/v1/search')
export class FindController {
  constructor(
    private readonly finder: FindService,
    private readonly context: ContextSearchService,
  ) {}

  @Post('find')
  @HttpCode(200)
  @RawResponse()
  @ApiOperation({ summary: 'Stateless hybrid retrieval: hits in memories/resources/skills, each sorted by score' })
  @ApiBody({ type: FindRequestDto })
  @ApiOkResponse({ type: FindEnvelopeDto })
  find(@Caller() caller: Identity, @Body() body: unknown) {
    return this.finder.find(caller, body);
  }

  @Post('search')
  @HttpCode(200)
  @RawResponse()
  @ApiOperation({
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
    const raw = isPlainObject(body) ? body : null;
    const mode = raw?.['mode'];
    const wantsContext =
      raw &&
      (mode === 'context' || ((mode === undefined || mode === 'list') && contextOnlyFieldsPresent(raw).length > 0));
    return wantsContext ? this.context.search(caller, raw) : this.finder.list(caller, body);
  }
}
