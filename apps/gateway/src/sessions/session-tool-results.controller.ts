import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import {
  ToolResultListQueryDto,
  ToolResultParamDto,
  ToolResultReadQueryDto,
  ToolResultSearchQueryDto,
  ToolResultsParamDto,
} from './dto/tool-results.dto';
import { SessionToolResultsService } from './session-tool-results.service';

/** A session's externalised tool outputs (docs/sessions.md "Tool results"). */
@ApiTags('sessions')
@ApiErrors(400, 401, 404)
@Controller('api/v1/sessions')
export class SessionToolResultsController {
  constructor(private readonly toolResults: SessionToolResultsService) {}

  @Get(':sessionId/tool-results')
  @ApiOperation({ summary: "The session's tool results (externalised long tool outputs), oldest first" })
  @ApiOkEnvelope('object')
  list(@Caller() c: Identity, @Param() p: ToolResultsParamDto, @Query() q: ToolResultListQueryDto) {
    return this.toolResults.list(c, p.sessionId, q);
  }

  @Get(':sessionId/tool-results/:toolResultId')
  @ApiOperation({ summary: 'Read a tool result by offsets in Unicode code points (limit -1: to the end)' })
  @ApiOkEnvelope('object')
  read(@Caller() c: Identity, @Param() p: ToolResultParamDto, @Query() q: ToolResultReadQueryDto) {
    return this.toolResults.read(c, p.sessionId, p.toolResultId, q);
  }

  @Get(':sessionId/tool-results/:toolResultId/search')
  @ApiOperation({ summary: 'Find literal text in a tool result (case-insensitive, not a pattern)' })
  @ApiOkEnvelope('object')
  search(@Caller() c: Identity, @Param() p: ToolResultParamDto, @Query() q: ToolResultSearchQueryDto) {
    return this.toolResults.search(c, p.sessionId, p.toolResultId, q);
  }
}
