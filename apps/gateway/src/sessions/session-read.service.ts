import { Injectable } from '@nestjs/common';
import { archiveName, Identity, KernelError, KernelErrorCode, parseArchiveName, sessionContext } from '@app/kernel';
import { SessionArchiveRepository, SessionRepository } from '@app/store';

const DEFAULT_BUDGET = 128_000;
const MAX_BUDGET = 10_000_000;

/** `/context` and `/archives/{id}`: what a resumed session reads back. See docs/sessions.md "Session context". */
@Injectable()
export class SessionReadService {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly archives: SessionArchiveRepository,
  ) {}

  async context(caller: Identity, sessionId: string, rawBudget: unknown) {
    const budget = tokenBudget(rawBudget);
    const s = await this.sessions.find(caller, sessionId);
    if (!s)
      throw new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, {
        type: 'session',
        resource: sessionId,
      });
    const [{ archives, total }, live] = await Promise.all([
      this.archives.recent(caller, sessionId),
      this.sessions.liveMessages(caller, sessionId),
    ]);
    return sessionContext(archives, live, budget, total);
  }

  async archive(caller: Identity, sessionId: string, archiveId: string) {
    const missing = () =>
      new KernelError(KernelErrorCode.NotFound, `Archive ${archiveId} not found`, {
        type: 'archive',
        resource: archiveId,
      });
    const index = parseArchiveName(archiveId);
    if (index === null) throw missing();
    const s = await this.sessions.find(caller, sessionId);
    if (!s)
      throw new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, {
        type: 'session',
        resource: sessionId,
      });
    const a = await this.archives.get(caller, sessionId, index);
    if (!a || a.status !== 'done' || !a.overview.trim()) throw missing();
    return { archive_id: archiveName(a.index), abstract: a.abstract, overview: a.overview, messages: a.messages };
  }
}

/** `token_budget`: a non-negative integer (default 128000); the error names the field and value. */
function tokenBudget(raw: unknown): number {
  if (raw === undefined) return DEFAULT_BUDGET;
  if (typeof raw !== 'number' || !Number.isInteger(raw)) {
    throw new KernelError(KernelErrorCode.InvalidArgument, 'token_budget must be an integer', {
      field: 'token_budget',
      value: String(raw).slice(0, 32),
    });
  }
  if (raw < 0)
    throw new KernelError(KernelErrorCode.InvalidArgument, 'token_budget must be greater than or equal to 0', {
      field: 'token_budget',
      value: raw,
    });
  if (raw > MAX_BUDGET) {
    throw new KernelError(KernelErrorCode.InvalidArgument, `token_budget must be less than or equal to ${MAX_BUDGET}`, {
      field: 'token_budget',
      value: raw,
    });
  }
  return raw;
}
