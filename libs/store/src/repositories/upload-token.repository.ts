import { createHash } from 'node:crypto';
import type { Identity } from '@app/kernel';
import { Db } from '../db/db.port';

/** What an upload token lets its holder do: write one file at `targetUri` as `identity`. */
export interface UploadGrant {
  identity: Identity;
  targetUri: string;
  processingMode: 'semantic_and_vectors' | 'vectors_only';
  tags: string[] | null;
  expiresAt: Date;
}

interface Row {
  account_id: string;
  user_id: string;
  role: Identity['role'];
  actor_peer_id: string | null;
  target_uri: string;
  processing_mode: UploadGrant['processingMode'];
  tags: string[] | null;
  expires_at: Date | string;
}

// The minting user's role now, not when the link was made: a user deleted (or an account removed or
// suspended) since then holds no grant (NULL), a role change applies. Root (dev mode) has no users row.
const CURRENT_ROLE = `CASE WHEN t.role = 'root' THEN 'root'
  ELSE (SELECT u.role FROM users u JOIN accounts a ON a.account_id = u.account_id
        WHERE u.account_id = t.account_id AND u.user_id = t.user_id AND a.suspended_at IS NULL) END`;

const COLUMNS = `t.account_id, t.user_id, ${CURRENT_ROLE} AS role, t.actor_peer_id, t.target_uri, t.processing_mode,
  t.tags, t.expires_at`;

// What mint hands out (24 random bytes, base64url); anything else is never looked up.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;
const hash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

const toGrant = (r: Row): UploadGrant => ({
  identity: { accountId: r.account_id, userId: r.user_id, role: r.role, actorPeerId: r.actor_peer_id },
  targetUri: r.target_uri,
  processingMode: r.processing_mode,
  tags: r.tags,
  expiresAt: new Date(r.expires_at),
});

/** One-shot upload tokens (docs/fs-and-mcp.md, "add_resource"). Tokens are stored hashed. */
export class UploadTokenRepository {
  constructor(private readonly db: Db) {}

  /** Stores a grant for `token`, valid `ttlS` seconds; expired grants are dropped on the way. */
  async mint(token: string, grant: Omit<UploadGrant, 'expiresAt'>, ttlS: number): Promise<Date> {
    await this.db.query('DELETE FROM upload_tokens WHERE expires_at < now()');
    return this.insert(token, grant, `now() + $9 * interval '1 second'`, ttlS, '');
  }

  /** Inserts `token`'s row expiring at `expiry` (an SQL expression of `$9`); its `expires_at`. */
  private async insert(
    token: string,
    grant: Omit<UploadGrant, 'expiresAt'>,
    expiry: string,
    expiryParam: unknown,
    onConflict: string,
  ): Promise<Date> {
    const { rows } = await this.db.query<{ expires_at: Date | string }>(
      `INSERT INTO upload_tokens (token_hash, account_id, user_id, role, actor_peer_id, target_uri, processing_mode, tags, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${expiry}) ${onConflict} RETURNING expires_at`,
      [
        hash(token),
        grant.identity.accountId,
        grant.identity.userId,
        grant.identity.role,
        grant.identity.actorPeerId,
        grant.targetUri,
        grant.processingMode,
        grant.tags,
        expiryParam,
      ],
    );
    return new Date(rows[0]?.expires_at ?? 0);
  }

  /** The live grant of `token` without using it (the request gate's check before a body is read). */
  async peek(token: string): Promise<UploadGrant | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const { rows } = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM upload_tokens t WHERE t.token_hash = $1 AND t.expires_at > now()`,
      [hash(token)],
    );
    return rows[0]?.role ? toGrant(rows[0]) : null;
  }

  /**
   * Gives `token` back after a use that stored nothing (its write refused or failed), as it was: the same grant
   * and expiry, so the link can be retried. A token given back after it expired stays unusable.
   */
  async restore(token: string, grant: UploadGrant): Promise<void> {
    await this.insert(token, grant, '$9', grant.expiresAt, 'ON CONFLICT DO NOTHING');
  }

  /** Uses `token`: returns its grant and deletes it, so a second use finds nothing. */
  async consume(token: string): Promise<UploadGrant | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const { rows } = await this.db.query<Row>(
      `DELETE FROM upload_tokens t WHERE t.token_hash = $1 AND t.expires_at > now() RETURNING ${COLUMNS}`,
      [hash(token)],
    );
    return rows[0]?.role ? toGrant(rows[0]) : null;
  }
}
