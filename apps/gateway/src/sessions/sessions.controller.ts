import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import {
  AddMessageDto,
  AddMessagesBatchDto,
  ArchiveParamDto,
  CommitDto,
  ContextQueryDto,
  CreateSessionDto,
  GetSessionQueryDto,
  PatchSessionConfigDto,
  RecordUsedDto,
  SessionDto,
  SessionIdParamDto,
} from './dto/sessions.dto';
import { DedupLedgerService } from '../ledger/dedup-ledger.service';
import { validateBody } from '../http/validate-body';
import { Telemetry } from '../http/telemetry.interceptor';
import { SessionCommitService } from './session-commit.service';
import { SessionReadService } from './session-read.service';
import { SessionUsageService } from './session-usage.service';
import { SessionsService } from './sessions.service';
import { Idempotent } from '../idempotency/idempotency.interceptor';

/** Session routes (docs/sessions.md). Bodies the agent plugins send may carry extra keys: they are ignored. */
@ApiTags('sessions')
@ApiErrors(400, 401, 404)
@Controller('api/v1/sessions')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly commits: SessionCommitService,
    private readonly reads: SessionReadService,
    private readonly usage: SessionUsageService,
    private readonly ledger: DedupLedgerService,
  ) {}

  @Post()
  @Idempotent()
  @HttpCode(200)
  @Telemetry('session.create')
  @ApiOperation({ summary: 'Create a session (409 when the given id exists)' })
  @ApiBody({ type: CreateSessionDto, required: false })
  @ApiOkEnvelope('object', { telemetry: true })
  @ApiErrors(409, 413)
  async create(@Caller() c: Identity, @Body() raw: unknown) {
    return this.sessions.create(c, await validateBody(CreateSessionDto, raw, { unknownKeys: 'ignore' }));
  }

  @Get()
  @ApiOperation({ summary: 'List your sessions, most recently active first' })
  @ApiOkEnvelope('object')
  list(@Caller() c: Identity) {
    return this.sessions.list(c);
  }

  @Get(':sessionId')
  @ApiOperation({ summary: 'Get a session meta (auto_create materialises a missing one)' })
  @ApiOkEnvelope(SessionDto)
  get(@Caller() c: Identity, @Param() p: SessionIdParamDto, @Query() q: GetSessionQueryDto) {
    return this.sessions.get(c, p.sessionId, q.auto_create ?? false);
  }

  @Delete(':sessionId')
  @Idempotent()
  @ApiOperation({ summary: 'Delete a session, its messages, archives and dedup ledger (extracted memories stay)' })
  @ApiOkEnvelope('object')
  remove(@Caller() c: Identity, @Param() p: SessionIdParamDto) {
    return this.sessions.remove(c, p.sessionId);
  }

  @Patch(':sessionId/config')
  @Idempotent()
  @Telemetry('session.update_config')
  @ApiOperation({ summary: 'Change the automatic-commit policy and default event tags' })
  @ApiOkEnvelope('object', { telemetry: true })
  patchConfig(@Caller() c: Identity, @Param() p: SessionIdParamDto, @Body() b: PatchSessionConfigDto) {
    return this.sessions.patchConfig(c, p.sessionId, b);
  }

  @Post(':sessionId/messages')
  @Idempotent()
  @HttpCode(200)
  @Telemetry('session.add_message')
  @ApiOperation({ summary: 'Append a message (creates the session when missing); may trigger an automatic commit' })
  @ApiBody({ type: AddMessageDto })
  @ApiOkEnvelope('object', { telemetry: true })
  @ApiErrors(413)
  async addMessage(@Caller() c: Identity, @Param() p: SessionIdParamDto, @Body() raw: unknown) {
    return this.sessions.addMessage(c, p.sessionId, await validateBody(AddMessageDto, raw, { unknownKeys: 'ignore' }));
  }

  @Post(':sessionId/messages/batch')
  @Idempotent()
  @HttpCode(200)
  @Telemetry('session.add_messages')
  @ApiOperation({ summary: 'Append up to MUNINN_SESSION_BATCH_MAX messages, all or nothing' })
  @ApiBody({ type: AddMessagesBatchDto })
  @ApiOkEnvelope('object', { telemetry: true })
  @ApiErrors(413)
  async addBatch(@Caller() c: Identity, @Param() p: SessionIdParamDto, @Body() raw: unknown) {
    return this.sessions.addBatch(
      c,
      p.sessionId,
      await validateBody(AddMessagesBatchDto, raw, { unknownKeys: 'ignore' }),
    );
  }

  @Get(':sessionId/messages')
  @ApiOperation({ summary: 'The live (not yet archived) messages of a session, oldest first' })
  @ApiOkEnvelope('object')
  messages(@Caller() c: Identity, @Param() p: SessionIdParamDto) {
    return this.sessions.messages(c, p.sessionId);
  }

  @Post(':sessionId/commit')
  @Idempotent()
  @HttpCode(200)
  @Telemetry('session.commit')
  @ApiOperation({
    summary:
      'Archive the live messages now and extract memories on the workers; answers a task id (503 when the queue is away)',
  })
  @ApiBody({ type: CommitDto, required: false })
  @ApiOkEnvelope('object', { telemetry: true })
  @ApiErrors(429, 503)
  async commit(@Caller() c: Identity, @Param() p: SessionIdParamDto, @Body() raw: unknown) {
    return this.commits.commit(c, p.sessionId, await validateBody(CommitDto, raw, { unknownKeys: 'ignore' }));
  }

  @Post(':sessionId/extract')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Extract memories from the live messages now (nothing archived, no task); answers the written files',
  })
  @ApiOkEnvelope('object')
  @ApiErrors(503, 504)
  extract(@Caller() c: Identity, @Param() p: SessionIdParamDto) {
    return this.sessions.extract(c, p.sessionId);
  }

  @Post(':sessionId/used')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Record the contexts and skill the agent used; the next commit counts them (usage_events_extracted)',
  })
  @ApiBody({ type: RecordUsedDto, required: false })
  @ApiOkEnvelope('object')
  @ApiErrors(413)
  async used(@Caller() c: Identity, @Param() p: SessionIdParamDto, @Body() raw: unknown) {
    return this.usage.record(c, p.sessionId, await validateBody(RecordUsedDto, raw, { unknownKeys: 'ignore' }));
  }

  @Get(':sessionId/context')
  @ApiOperation({ summary: 'Latest archive overview and the messages not yet summarised, within token_budget' })
  @ApiOkEnvelope('object')
  context(@Caller() c: Identity, @Param() p: SessionIdParamDto, @Query() q: ContextQueryDto) {
    return this.reads.context(c, p.sessionId, q.token_budget);
  }

  @Get(':sessionId/archives/:archiveId')
  @ApiOperation({ summary: 'A completed archive: abstract, overview and its messages' })
  @ApiOkEnvelope('object')
  archive(@Caller() c: Identity, @Param() p: ArchiveParamDto) {
    return this.reads.archive(c, p.sessionId, p.archiveId);
  }

  @Get(':sessionId/recall-log')
  @ApiOperation({ summary: "The session's cross-turn dedup ledger as JSON, or null when none was written" })
  @ApiOkEnvelope('object')
  recallLog(@Caller() c: Identity, @Param() p: SessionIdParamDto) {
    return this.ledger.read(c, p.sessionId);
  }
}
