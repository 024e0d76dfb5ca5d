import type { Identity } from '@app/kernel';
import { Db } from '../db/db.port';

/**
 * Whether the session has a commit task: one still pending, running or being cancelled (`inFlightOnly`), or any,
 * whatever its state, while it is kept. Read inside `q`'s transaction when given one.
 */
export async function commitTaskExists(
  q: Pick<Db, 'query'>,
  identity: Pick<Identity, 'accountId' | 'userId'>,
  sessionId: string,
  inFlightOnly: boolean,
): Promise<boolean> {
  const { rows } = await q.query(
    `SELECT 1 FROM session_tasks WHERE account_id = $1 AND user_id = $2 AND resource_id = $3
       AND task_type = 'session_commit' AND (NOT $4 OR status IN ('pending', 'running', 'cancelling')) LIMIT 1`,
    [identity.accountId, identity.userId, sessionId, inFlightOnly],
  );
  return rows.length > 0;
}
