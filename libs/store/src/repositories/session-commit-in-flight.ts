import type { Identity } from '@app/kernel';
import { Db } from '../db/db.port';

/** Whether a commit task of the session is pending, running or being cancelled (read inside `q`'s transaction). */
export async function commitInFlight(
  q: Pick<Db, 'query'>,
  identity: Pick<Identity, 'accountId' | 'userId'>,
  sessionId: string,
): Promise<boolean> {
  const { rows } = await q.query(
    `SELECT 1 FROM session_tasks WHERE account_id = $1 AND user_id = $2 AND resource_id = $3
       AND task_type = 'session_commit' AND status IN ('pending', 'running', 'cancelling') LIMIT 1`,
    [identity.accountId, identity.userId, sessionId],
  );
  return rows.length > 0;
}
