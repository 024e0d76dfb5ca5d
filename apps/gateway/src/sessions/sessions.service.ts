import { Injectable } from '@nestjs/common';
import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { SessionRepository } from '@app/store';
import { DedupLedgerService } from '../search/dedup-ledger.service';
import { AddMessageDto } from './dto/sessions.dto';

/** Sessions of the calling user; the actor-peer header never applies here. */
@Injectable()
export class SessionsService {
  constructor(private readonly sessions: SessionRepository, private readonly ledgers: DedupLedgerService) {}

  async create(caller: Identity, sessionId?: string) {
    const s = await this.sessions.create(caller, sessionId).catch((err: unknown) => {
      if (err instanceof KernelError && err.code === KernelErrorCode.Conflict) {
        throw new KernelError(KernelErrorCode.AlreadyExists, `Resource already exists: Session '${sessionId}' already exists`, { resource: sessionId, type: 'session' });
      }
      throw err;
    });
    return { session_id: s.session_id, uri: s.uri, user: { account_id: caller.accountId, user_id: caller.userId } };
  }

  list(caller: Identity) {
    return this.sessions.list(caller);
  }

  async get(caller: Identity, sessionId: string, autoCreate: boolean) {
    const s = autoCreate ? (await this.sessions.getOrCreate(caller, sessionId)).session : await this.sessions.find(caller, sessionId);
    if (!s) throw new KernelError(KernelErrorCode.NotFound, `Session ${sessionId} not found`, { type: 'session', resource: sessionId });
    return { ...s, user: { account_id: caller.accountId, user_id: caller.userId } };
  }

  async remove(caller: Identity, sessionId: string) {
    await this.ledgers.forget({ accountId: caller.accountId, userId: caller.userId, sessionId });
    await this.sessions.delete(caller, sessionId);
    return { session_id: sessionId };
  }

  /** Appends a message, creating the session when needed (as the reference does). */
  async addMessage(caller: Identity, sessionId: string, dto: AddMessageDto) {
    if (dto.content === undefined && dto.parts === undefined) {
      throw new KernelError(KernelErrorCode.InvalidArgument, 'Either content or parts must be provided');
    }
    const content = dto.parts ? textOfParts(dto.parts) : (dto.content ?? '');
    await this.sessions.getOrCreate(caller, sessionId);
    const r = await this.sessions.addMessage(caller, sessionId, { role: dto.role, content, parts: dto.parts ?? null });
    const s = await this.sessions.find(caller, sessionId);
    return { session_id: sessionId, message_count: s?.message_count ?? r.total_message_count, total_message_count: r.total_message_count, message_id: r.message.id };
  }

  async messages(caller: Identity, sessionId: string) {
    const s = await this.sessions.find(caller, sessionId);
    if (!s) throw new KernelError(KernelErrorCode.NotFound, `Session ${sessionId} not found`, { type: 'session', resource: sessionId });
    return this.sessions.recentMessages(caller, sessionId, 1000);
  }
}

function textOfParts(parts: Record<string, unknown>[]): string {
  return parts
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}
