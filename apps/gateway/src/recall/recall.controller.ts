import { Body, Controller, Header, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Identity, RECALL_DEPRECATION_HEADERS } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { RawResponse } from '../http/raw-response.decorator';
import { ContextSearchService } from '../context/context-search.service';
import { RecallRequestDto } from '../context/dto/context-request.dto';
import { ContextEnvelopeDto } from '../context/dto/context-response.dto';

/** The deprecated v1 preset (docs/contract.md#recall-preset): folded onto a context request, same pipeline, deprecation signals. */
@ApiTags('search')
@ApiErrors(400, 401, 403, 503, 504)
@Controller('api/v1/search')
export class RecallController {
  constructor(private readonly context: ContextSearchService) {}

  @Post('recall')
  @HttpCode(200)
  @RawResponse()
  @Header('Deprecation', RECALL_DEPRECATION_HEADERS.Deprecation)
  @Header('Link', RECALL_DEPRECATION_HEADERS.Link)
  @ApiOperation({
    deprecated: true,
    summary: 'Deprecated: use POST /api/v1/search/search with mode="context"',
    description:
      'v1 aliases max_chars, min_score and render are folded onto the context request; stats.deprecated says how.',
  })
  @ApiBody({ type: RecallRequestDto })
  @ApiOkResponse({
    type: ContextEnvelopeDto,
    headers: {
      Deprecation: { description: `Always \`${RECALL_DEPRECATION_HEADERS.Deprecation}\`.`, schema: { type: 'string' } },
      Link: { description: `\`${RECALL_DEPRECATION_HEADERS.Link}\``, schema: { type: 'string' } },
    },
  })
  recall(@Caller() caller: Identity, @Body() body: unknown) {
    return this.context.recall(caller, body);
  }
}
