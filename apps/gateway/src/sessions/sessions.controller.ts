import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { AddMessageDto, CreateSessionDto, GetSessionQueryDto, SessionDto, SessionIdParamDto } from './dto/sessions.dto';
import { DedupLedgerService } from '../search/dedup-ledger.service';
import { SessionsService } from './sessions.service';

@ApiTags('sessions')
@ApiErrors(400, 401, 404)
@Controller('api/v1/sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService, private readonly ledger: DedupLedgerService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a session (409 when the given id exists)' })
  @ApiOkEnvelope('object')
  @ApiErrors(409)
  create(@Caller() c: Identity, @Body() b: CreateSessionDto) {
    return this.sessions.create(c, b.session_id);
  }

  @Get()
  @ApiOperation({ summary: 'List your sessions, most recently active first' })
  @ApiOkEnvelope([SessionDto])
  list(@Caller() c: Identity) {
    return this.sessions.list(c);
  }

  @Get(':sessionId')
  @ApiOperation({ summary: 'Get a session (auto_create materialises a missing one)' })
  @ApiOkEnvelope(SessionDto)
  get(@Caller() c: Identity, @Param() p: SessionIdParamDto, @Query() q: GetSessionQueryDto) {
    return this.sessions.get(c, p.sessionId, q.auto_create ?? false);
  }

  @Delete(':sessionId')
  @ApiOperation({ summary: 'Delete a session and its messages' })
  @ApiOkEnvelope('object')
  remove(@Caller() c: Identity, @Param() p: SessionIdParamDto) {
    return this.sessions.remove(c, p.sessionId);
  }

  @Post(':sessionId/messages')
  @HttpCode(200)
  @ApiOperation({ summary: 'Append a message (creates the session when missing); advances the message clock' })
  @ApiOkEnvelope('object')
  addMessage(@Caller() c: Identity, @Param() p: SessionIdParamDto, @Body() b: AddMessageDto) {
    return this.sessions.addMessage(c, p.sessionId, b);
  }

  @Get(':sessionId/messages')
  @ApiOperation({ summary: 'The messages of a session, oldest first' })
  @ApiOkEnvelope('object')
  messages(@Caller() c: Identity, @Param() p: SessionIdParamDto) {
    return this.sessions.messages(c, p.sessionId);
  }

  @Get(':sessionId/recall-log')
  @ApiOperation({ summary: "The session's cross-turn dedup ledger (contract §9 JSON shape), or null when none was written" })
  @ApiOkEnvelope('object')
  recallLog(@Caller() c: Identity, @Param() p: SessionIdParamDto) {
    return this.ledger.read(c, p.sessionId);
  }
}
