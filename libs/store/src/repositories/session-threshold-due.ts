import { Identity, storedPolicy, thresholdCommitAt } from '@app/kernel';
import { Db } from '../db/db.port';
import { commitStateOf, SESSION_SELECT, SessionRecord, SessionRow, toSessionRecord } from './session-rows';

/**
 * Reads the session inside `tx` and keeps a threshold commit it has due (now, or when its throttle ends) as its
 * check's due time, brought forward (docs/sessions.md, "Automatic commit"). Called by every statement that can put
 * a session over its policy's threshold: a message append, a policy change, an imported session's close. The
 * gateway commits in the background after answering, and a commit lost there (the gateway stopped, the store or
 * the queue away, the session's previous commit still running, or the throttle) is asked for by the extractor's
 * idle relay instead of waiting for a message that may never come. Null when the session does not exist.
 */
export async function keepThresholdDue(
  tx: Pick<Db, 'query'>,
  identity: Pick<Identity, 'accountId' | 'userId'>,
  sessionId: string,
): Promise<SessionRecord | null> {
  const owner = [identity.accountId, identity.userId, sessionId];
  const { rows } = await tx.query<SessionRow>(
    `${SESSION_SELECT} WHERE s.account_id = $1 AND s.user_id = $2 AND s.session_id = $3`,
    owner,
  );
  if (!rows[0]) return null;
  const session = toSessionRecord(identity, rows[0]);
  const at = thresholdCommitAt(storedPolicy(session.auto_commit_policy), commitStateOf(session), Date.now());
  if (at !== null) {
    await tx.query(
      `UPDATE sessions SET idle_check_at = least(idle_check_at, to_timestamp($4::double precision / 1000))
       WHERE account_id = $1 AND user_id = $2 AND session_id = $3`,
      [...owner, at],
    );
  }
  return session;
}
