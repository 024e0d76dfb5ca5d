import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ACCOUNTS_PAGE, AUDIT_PAGE, type Identity } from '@app/kernel';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { RawResponse } from '../http/raw-response.decorator';
import { sendNdjson } from './ndjson';
import { AdminService } from './admin.service';
import { AccountExportService } from './account-export.service';
import { AccountImportService } from './account-import.service';
import {
  AccountLimitsDto,
  AccountsQueryDto,
  AccountSuspensionDto,
  AuditQueryDto,
  CreateAccountDto,
  CreateUserDto,
  RotateKeyDto,
  SetRoleDto,
} from './dto/admin.dto';

@ApiTags('admin')
@ApiErrors(400, 401, 403, 404, 409)
@Controller('api/v1/admin/accounts')
export class AdminController {
  constructor(
    private readonly admin: AdminService,
    private readonly importer: AccountImportService,
    private readonly exporter: AccountExportService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create an account and its first admin; returns the admin key once (root only)' })
  create(@Caller() c: Identity, @Body() b: CreateAccountDto) {
    return this.admin.createAccount(c, b.account_id, b.admin_user_id, b.seed);
  }

  @Get()
  @ApiOperation({
    summary: `List accounts in id order, a page at a time: at most \`limit\` (default ${ACCOUNTS_PAGE.default}) after the id \`after\`; ask again with the last id until fewer come back (root only)`,
  })
  list(@Caller() c: Identity, @Query() q: AccountsQueryDto) {
    return this.admin.listAccounts(c, q.limit ?? ACCOUNTS_PAGE.default, q.after ?? null);
  }

  @Get(':accountId')
  @ApiOperation({
    summary:
      "One account: created_at, user_count, suspended, and import (while an import makes it: lines read and what was written, as of its last heartbeat) (root, or the account's admin)",
  })
  getAccount(@Caller() c: Identity, @Param('accountId') accountId: string) {
    return this.admin.getAccount(c, accountId);
  }

  @Delete(':accountId')
  @ApiOperation({
    summary:
      'Delete an account with its users, keys, content and sessions (root only); an import running into it is cancelled (409 import_cancelled)',
  })
  remove(@Caller() c: Identity, @Param('accountId') accountId: string) {
    return this.admin.deleteAccount(c, accountId);
  }

  @Get(':accountId/limits')
  @ApiOperation({
    summary:
      "The account's limits (request rate, concurrency, model tokens per day, storage, session and user quotas, backlog bounds) and which are its own (root, or the account's admin)",
  })
  limits(@Caller() c: Identity, @Param('accountId') accountId: string) {
    return this.admin.accountLimits(c, accountId);
  }

  @Put(':accountId/limits')
  @ApiOperation({
    summary:
      "Replace the account's own limits; a limit left out or null takes the deployment's value (root only; other processes see it within 5 s)",
  })
  setLimits(@Caller() c: Identity, @Param('accountId') accountId: string, @Body() b: AccountLimitsDto) {
    return this.admin.setAccountLimits(c, accountId, b);
  }

  @Put(':accountId/suspension')
  @ApiOperation({
    summary:
      'Suspend or resume an account: while suspended, every key of the account is refused (403) and its data kept (root only; other gateways within MUNINN_KEY_CACHE_TTL_MS at most); 409 import_in_progress while an import runs into it',
  })
  suspend(@Caller() c: Identity, @Param('accountId') accountId: string, @Body() b: AccountSuspensionDto) {
    return this.admin.setSuspension(c, accountId, b);
  }

  @Get(':accountId/usage')
  @ApiOperation({
    summary:
      "What the account holds and has spent against its bounds: storage, sessions, users, backlogs and model tokens today (root, or the account's admin)",
  })
  usage(@Caller() c: Identity, @Param('accountId') accountId: string) {
    return this.admin.accountUsage(c, accountId);
  }

  @Get(':accountId/audit')
  @ApiOperation({
    summary:
      "The account's audit trail, newest first: accounts, users, roles, keys, limits and suspensions changed, by whom and when (root, or the account's admin)",
  })
  audit(@Caller() c: Identity, @Param('accountId') accountId: string, @Query() q: AuditQueryDto) {
    return this.admin.auditTrail(c, accountId, q.limit ?? AUDIT_PAGE.default, q.before ?? null);
  }

  @Get(':accountId/export')
  @ApiErrors(429)
  @RawResponse()
  @ApiProduces('application/x-ndjson')
  @ApiOperation({
    summary:
      "Export the account's data as NDJSON, streamed: the account and its users, every file with its body, every session with its archives and messages, then an `end` line with the counts (root only; recorded in the audit trail)",
  })
  async exportAccount(
    @Caller() c: Identity,
    @Param('accountId') accountId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { lines, release } = await this.exporter.open(c, accountId);
    return sendNdjson(reply, accountId, lines, release);
  }

  @Get(':accountId/users/:userId/export')
  @ApiErrors(429)
  @RawResponse()
  @ApiProduces('application/x-ndjson')
  @ApiOperation({
    summary:
      "Export one user's data as NDJSON, streamed, in the account export's format: the account line listing that user, every node of their space with its body, their sessions with archives and messages, then the `end` line (root only; recorded in the audit trail as user.export). Importable as a new account holding that user",
  })
  async exportUser(
    @Caller() c: Identity,
    @Param('accountId') accountId: string,
    @Param('userId') userId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { lines, release } = await this.exporter.open(c, accountId, userId);
    return sendNdjson(reply, `${accountId}.${userId}`, lines, release);
  }

  @Post(':accountId/import')
  @HttpCode(200)
  @ApiErrors(413, 415, 429)
  @ApiConsumes('application/x-ndjson')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiOperation({
    summary:
      'Import an account export (NDJSON, streamed) as the new account `accountId`: its users with new keys (returned once), limits, files, sessions, archives, messages, tool-result and usage records; suspended until whole, cancelled by deleting the account, removed whole when a line is refused (root only; recorded in the audit trail)',
  })
  importAccount(@Caller() c: Identity, @Param('accountId') accountId: string, @Req() req: FastifyRequest) {
    // No body at all reads as an empty export (refused: it has no end line).
    const body = (req.body as AsyncIterable<Buffer> | undefined) ?? [];
    return this.importer.importAccount(c, accountId, body);
  }

  @Post(':accountId/users')
  @HttpCode(200)
  @ApiErrors(413)
  @ApiOperation({ summary: 'Register a user; returns its key once (at most MUNINN_ACCOUNT_MAX_USERS per account)' })
  createUser(@Caller() c: Identity, @Param('accountId') accountId: string, @Body() b: CreateUserDto) {
    return this.admin.createUser(c, accountId, b.user_id, b.role ?? 'user', b.seed);
  }

  @Get(':accountId/users')
  @ApiOperation({ summary: 'List the users of an account' })
  listUsers(@Caller() c: Identity, @Param('accountId') accountId: string) {
    return this.admin.listUsers(c, accountId);
  }

  @Get(':accountId/users/:userId')
  @ApiOperation({
    summary: "One user of an account, with their keys' creation, expiry and last use (to the minute; never the key)",
  })
  getUser(@Caller() c: Identity, @Param('accountId') accountId: string, @Param('userId') userId: string) {
    return this.admin.getUser(c, accountId, userId);
  }

  @Delete(':accountId/users/:userId')
  @ApiOperation({ summary: 'Delete a user with their keys, private content and sessions' })
  deleteUser(@Caller() c: Identity, @Param('accountId') accountId: string, @Param('userId') userId: string) {
    return this.admin.deleteUser(c, accountId, userId);
  }

  @Delete(':accountId/users/:userId/previous-key')
  @ApiOperation({
    summary: 'Stop the key a rotation kept (previous_key_valid_s) now; 404 when the user holds none still working',
  })
  revokePreviousKey(@Caller() c: Identity, @Param('accountId') accountId: string, @Param('userId') userId: string) {
    return this.admin.revokePreviousKey(c, accountId, userId);
  }

  @Put(':accountId/users/:userId/role')
  @ApiOperation({ summary: "Change a user's role" })
  setRole(
    @Caller() c: Identity,
    @Param('accountId') accountId: string,
    @Param('userId') userId: string,
    @Body() b: SetRoleDto,
  ) {
    return this.admin.setRole(c, accountId, userId, b.role);
  }

  @Post(':accountId/users/:userId/key')
  @HttpCode(200)
  @ApiOperation({
    summary: "Rotate a user's key; the old key stops working at once, or after previous_key_valid_s seconds",
  })
  rotateKey(
    @Caller() c: Identity,
    @Param('accountId') accountId: string,
    @Param('userId') userId: string,
    @Body() b: RotateKeyDto,
  ) {
    return this.admin.rotateKey(c, accountId, userId, b.seed, b.previous_key_valid_s ?? 0);
  }
}
