import { Db } from '@app/store';

/**
 * What an account's rows hold, counted from the rows themselves: its nodes and their content bytes, plus
 * the bytes of its live session messages and waiting usage records, the way the store's usage triggers
 * weigh them (docs/limits-and-security.md, "Storage quota"). Tests compare it with `readUsage`.
 */
export async function countedUsage(db: Db, account: string): Promise<{ nodes: number; contentBytes: number }> {
  const { rows } = await db.query<{ nodes: number; bytes: string; messages: string; records: string }>(
    `SELECT count(*)::int AS nodes, coalesce(sum(octet_length(content)), 0)::text AS bytes,
       (SELECT coalesce(sum(octet_length(content) + coalesce(octet_length(parts::text), 0) + octet_length(extra::text)), 0)
          FROM messages WHERE account_id = $1)::text AS messages,
       (SELECT coalesce(sum(octet_length(uri) + coalesce(octet_length(skill::text), 0)), 0)
          FROM session_usage WHERE account_id = $1)::text AS records
     FROM nodes WHERE account_id = $1`,
    [account],
  );
  const { nodes, bytes, messages, records } = rows[0]!;
  return { nodes, contentBytes: Number(bytes) + Number(messages) + Number(records) };
}
