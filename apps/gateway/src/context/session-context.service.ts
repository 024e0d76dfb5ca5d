import { Injectable, Logger } from '@nestjs/common';
import { Identity, messageText, SessionMessage, turnClock } from '@app/kernel';
import { MessageRecord, SessionArchiveRepository, SessionRepository } from '@app/store';

/** The session as the pipeline sees it (docs/contract.md#pipeline step 3, docs/contract.md#dedup-ledger clock). */
export interface LoadedSession {
  sessionId: string;
  /** The ledger's turn clock: max(total_message_count, live messages). */
  clock: number;
  created: boolean;
  /** The last messages of the pending archives and the live ones (query expansion reads them). */
  recentMessages: MessageRecord[];
  /** Overview of the newest finished archive ('' when none): query expansion reads it. */
  latestArchiveOverview: string;
}

/** Messages query expansion reads (the planner sees five, docs/contract.md#query-expansion). */
const RECENT = 5;

const asRecord = (m: SessionMessage): MessageRecord => ({
  id: m.id,
  role: m.role,
  content: messageText(m),
  parts: m.parts,
  created_at: m.created_at ?? '',
});

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
      const live =
        withMessages && session.message_count > 0 ? await this.sessions.recentMessages(caller, sessionId, RECENT) : [];
      // A commit whose extraction has not finished still belongs to the conversation: its messages come
      // before the live ones, and the overview stays the newest finished archive's (docs/sessions.md
      // "Query expansion"). Five live messages leave no room for them, so they are not read then.
      const committed = withMessages && session.commit_count > 0;
      const [pending, latestArchiveOverview] = await Promise.all([
        committed && live.length < RECENT ? this.archives.pendingTail(caller, sessionId, RECENT - live.length) : [],
        committed ? this.archives.latestOverview(caller, sessionId) : '',
      ]);
      const recentMessages = [...pending.map(asRecord), ...live].slice(-RECENT);
      const clock = turnClock(session.total_message_count, session.message_count);
      return { sessionId, clock, created, recentMessages, latestArchiveOverview };
    } catch (err) {
      this.logger.warn(`session ${sessionId} could not be loaded; serving statelessly: ${(err as Error).message}`);
      return null;
    }
  }
}
