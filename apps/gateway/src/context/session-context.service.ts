import { Injectable, Logger } from '@nestjs/common';
import { Identity, turnClock } from '@app/kernel';
import { MessageRecord, SessionArchiveRepository, SessionRepository } from '@app/store';

/** The session as the pipeline sees it (docs/contract.md#pipeline step 3, docs/contract.md#dedup-ledger clock). */
export interface LoadedSession {
  sessionId: string;
  /** The ledger's turn clock: max(total_message_count, live messages). */
  clock: number;
  created: boolean;
  recentMessages: MessageRecord[];
  /** Overview of the newest finished archive ('' when none): query expansion reads it. */
  latestArchiveOverview: string;
}

/** Loads (materialising when missing) the session a context request names; any failure → no session. */
@Injectable()
export class SessionContextService {
  private readonly logger = new Logger(SessionContextService.name);

  constructor(
    private readonly sessions: SessionRepository,
    private readonly archives: SessionArchiveRepository,
  ) {}

  async load(caller: Identity, sessionId: string, withMessages: boolean): Promise<LoadedSession | null> {
    try {
      const { session, created } = await this.sessions.getOrCreate(caller, sessionId);
      const recentMessages =
        withMessages && session.message_count > 0 ? await this.sessions.recentMessages(caller, sessionId, 5) : [];
      const latestArchiveOverview =
        withMessages && session.commit_count > 0 ? await this.archives.latestOverview(caller, sessionId) : '';
      const clock = turnClock(session.total_message_count, session.message_count);
      return { sessionId, clock, created, recentMessages, latestArchiveOverview };
    } catch (err) {
      this.logger.warn(`session ${sessionId} could not be loaded; serving statelessly: ${(err as Error).message}`);
      return null;
    }
  }
}
