import { IndexJob } from '@app/contracts';
import { Identity, jsonStringBytes, KernelError, KernelErrorCode } from '@app/kernel';
import { Db } from '../db/db.port';
import { AccountQuota, enforceQuota } from './account-usage';
import { ancestors, nodePath } from './node-path';
import { insertOutbox } from './outbox';
import { scopeSql } from './scope';

type Tx = Pick<Db, 'query' | 'kind'>;

/** One file write of a (batch) write; `upsert` creates a missing file and replaces an existing one. */
export interface WriteOp {
  uri: string;
  content: string;
  mode: 'create' | 'replace' | 'append' | 'upsert';
  /** Replaces the node's tags when given. */
  tags?: string[];
  /**
   * `upsert` only: the content to store, computed from what the file holds under the row lock (null when
   * it does not exist yet); `content` is then what a new file holds. A read-modify-write done before the
   * transaction would lose another writer's change that committed in between.
   */
  merge?: (current: string | null) => string;
}

/** What one operation did: `changed` is false when the stored content (and tags) already matched. */
export interface WriteItem {
  uri: string;
  created: boolean;
  changed: boolean;
  size: number;
}

/** Outcome of a write: per-operation results and the outbox entry to index (null when nothing changed). */
export interface WriteManyOutcome {
  items: WriteItem[];
  createdDirectories: string[];
  index: IndexJob | null;
}

/** How a write is applied: the outbox grace of its index entry, and the account quota it must stay within. */
export interface WriteOptions {
  graceMs?: number;
  /** Absent: not checked here (a move checks once its source is gone, docs/limits-and-security.md). */
  quota?: AccountQuota;
  /** Bytes one file may take as an export writes it, after the write (MUNINN_FILE_MAX_BYTES); absent: not checked. */
  maxFileBytes?: number;
}

/** `growth`: the content's UTF-8 bytes minus the stored body's (for the quota). */
type Update = { uri: string; content: string; tags: string[] | null; growth: number };

interface Existing {
  uri: string;
  kind: 'file' | 'directory';
  content: string;
  tags: string[] | null;
}

/**
 * Applies file writes in the caller's transaction with a fixed number of statements, whatever the
 * number of files: parents created in one statement, existing rows locked in one, new rows inserted in
 * one (`ON CONFLICT DO NOTHING`, so of two concurrent creates of one URI exactly one wins), changed rows
 * updated in one, and one outbox entry naming every node that needs indexing. Any failure aborts all.
 * An `upsert` that loses such a race becomes an update of the winner's row (locked, merged, written), so
 * two writers of one new file both succeed; a `create` that loses is refused with ALREADY_EXISTS.
 * With `opts.quota`, a write that takes the account past it is refused once applied (it all rolls back).
 */
export async function writeNodes(
  tx: Tx,
  identity: Identity,
  ops: WriteOp[],
  opts: WriteOptions = {},
): Promise<WriteManyOutcome> {
  const parents = [...new Set(ops.map((o) => nodePath(o.uri).parentUri).filter((p): p is string => !!p))];
  const createdDirectories = await ensureDirectories(tx, identity, parents);
  const existing = await lockExisting(
    tx,
    identity,
    ops.map((o) => o.uri),
  );
  const inserts: { uri: string; content: string; tags: string[] }[] = [];
  const updates: Update[] = [];
  const items = ops.map((op): WriteItem => {
    const old = existing.get(op.uri);
    if (old?.kind === 'directory') {
      throw new KernelError(
        KernelErrorCode.InvalidArgument,
        `write only supports existing files, got directory: ${op.uri}`,
        {
          resource: op.uri,
          expected: 'file',
          actual: 'directory',
        },
      );
    }
    if (old && op.mode === 'create') {
      throw new KernelError(KernelErrorCode.AlreadyExists, `File already exists: ${op.uri}`, {
        resource: op.uri,
        type: 'file',
      });
    }
    if (!old && (op.mode === 'replace' || op.mode === 'append')) {
      throw new KernelError(KernelErrorCode.NotFound, `File not found: ${op.uri}`, { type: 'file', resource: op.uri });
    }
    if (!old) {
      inserts.push({ uri: op.uri, content: op.content, tags: op.tags ?? [] });
      return { uri: op.uri, created: true, changed: true, size: Buffer.byteLength(op.content, 'utf8') };
    }
    return planUpdate(
      op.mode === 'append' && !op.merge ? { ...op, content: old.content + op.content } : op,
      old,
      updates,
    );
  });
  const toIndex = [...inserts.map((i) => i.uri), ...updates.map((u) => u.uri), ...createdDirectories];
  if (toIndex.length === 0) return { items, createdDirectories, index: null };
  const index = await insertOutbox(tx, identity.accountId, 'upsert', toIndex, opts.graceMs);
  const lost = new Set(await insertFiles(tx, identity, inserts, index.outboxId));
  if (lost.size > 0) {
    // Another transaction created these files after our lock read found nothing, and committed.
    const refused = ops.find((o) => o.mode === 'create' && lost.has(o.uri));
    if (refused)
      throw new KernelError(KernelErrorCode.AlreadyExists, `File already exists: ${refused.uri}`, {
        resource: refused.uri,
        type: 'file',
      });
    const winners = await lockExisting(tx, identity, [...lost]);
    ops.forEach((op, i) => {
      const row = lost.has(op.uri) ? winners.get(op.uri) : undefined;
      if (row?.kind === 'directory')
        throw new KernelError(KernelErrorCode.Conflict, `${op.uri} became a directory during the write`, {
          uri: op.uri,
        });
      if (row) items[i] = planUpdate(op, row, updates);
    });
  }
  assertFileBounds(items, inserts, updates, opts.maxFileBytes);
  await updateFiles(tx, identity, updates, index.outboxId);
  // Sizes were measured once, when the operations were planned; a lost insert's item became an update.
  const created = items.filter((i) => i.created);
  await enforceQuota(tx, identity.accountId, opts.quota, {
    nodes: createdDirectories.length + created.length,
    contentBytes: created.reduce((sum, i) => sum + i.size, 0) + updates.reduce((sum, u) => sum + u.growth, 0),
  });
  return { items, createdDirectories, index };
}

/**
 * 413 for a file the write makes larger than `max` (MUNINN_FILE_MAX_BYTES), counted as an export's line holds it
 * (JSON-escaped: docs/limits-and-security.md, "Storage quota"), so the import reads it back. Only a file the write
 * creates or grows: one stored larger before the bound may still shrink or be replaced. Run on the final plan (a
 * lost insert's item re-planned as an update, a quote merged into the winner's file, included). The escaped size
 * is taken only where it could pass the bound (each byte escapes to six at most).
 */
function assertFileBounds(
  items: WriteItem[],
  inserts: { uri: string; content: string }[],
  updates: Update[],
  max: number | undefined,
): void {
  if (max === undefined) return;
  // What the write creates or grows, by URI (a lost insert re-planned as an update is in `updates` too).
  const created = new Set(items.filter((i) => i.created).map((i) => i.uri));
  const written = new Map<string, string>();
  for (const i of inserts) if (created.has(i.uri)) written.set(i.uri, i.content);
  for (const u of updates) if (u.growth > 0) written.set(u.uri, u.content);
  for (const item of items) {
    const content = written.get(item.uri);
    if (content === undefined || item.size * 6 + 2 <= max) continue;
    const bytes = jsonStringBytes(content);
    if (bytes <= max) continue;
    throw new KernelError(
      KernelErrorCode.PayloadTooLarge,
      `${item.uri} would take ${bytes} bytes in an export, more than one file may (MUNINN_FILE_MAX_BYTES: ${max})`,
      { field: 'content', resource: item.uri, limit: 'file_bytes', max },
    );
  }
}

/** An upsert or replace of an existing file: queued in `updates` unless content and tags already match. */
function planUpdate(op: WriteOp, old: Existing, updates: Update[]): WriteItem {
  const content = op.merge ? op.merge(old.content) : op.content;
  const size = Buffer.byteLength(content, 'utf8');
  const sameTags = op.tags === undefined || sameList(op.tags, old.tags ?? []);
  if (content === old.content && sameTags) return { uri: op.uri, created: false, changed: false, size };
  updates.push({ uri: op.uri, content, tags: op.tags ?? null, growth: size - Buffer.byteLength(old.content, 'utf8') });
  return { uri: op.uri, created: false, changed: true, size };
}

/**
 * Creates every missing directory on the way to `dirs` (one statement for all of them) and refuses a
 * path through a file. Returns the directories it created, shallowest first.
 */
export async function ensureDirectories(tx: Tx, identity: Identity, dirs: string[], attempt = 0): Promise<string[]> {
  const all = new Set<string>();
  for (const d of dirs) {
    all.add(d);
    for (const a of ancestors(d)) all.add(a);
  }
  if (all.size === 0) return [];
  const uris = [...all].sort();
  const paths = uris.map((u) => nodePath(u));
  const { rows } = await tx.query<{ uri: string }>(
    `INSERT INTO nodes (account_id, uri, parent_uri, kind, context_type, owner_user_id, peer_id)
     SELECT $1, u.uri, u.parent, 'directory', u.ctype, u.owner, u.peer
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(uri, parent, ctype, owner, peer)
     ORDER BY u.uri
     ON CONFLICT (account_id, uri) DO NOTHING RETURNING uri`,
    [
      identity.accountId,
      uris,
      paths.map((p) => p.parentUri),
      paths.map((p) => p.contextType),
      paths.map((p) => p.ownerUserId),
      paths.map((p) => p.peerId),
    ],
  );
  const created = new Set(rows.map((r) => r.uri));
  const kept = uris.filter((u) => !created.has(u));
  if (kept.length > 0) {
    // The directories that were there already are held (FOR KEY SHARE, in URI order) until this write commits: a
    // recursive delete or a move of one waits for it, then takes the new file too. `DO NOTHING` neither waits nor
    // locks, so a delete could commit between it and this write's insert, leaving a file whose directory was gone
    // (PostgreSQL; PGlite runs one transaction at a time). Another writer's share of the same rows does not wait.
    const { rows: held } = await tx.query<{ uri: string; kind: string }>(
      `SELECT uri, kind FROM nodes WHERE account_id = $1 AND uri = ANY($2::text[]) ORDER BY uri FOR KEY SHARE`,
      [identity.accountId, kept],
    );
    const file = held.find((r) => r.kind === 'file');
    if (file)
      throw new KernelError(KernelErrorCode.Conflict, `${file.uri} is a file, not a directory`, { uri: file.uri });
    if (held.length < kept.length) {
      // One was deleted (or moved away) by a transaction that committed while this one waited: made again.
      if (attempt >= ENSURE_ATTEMPTS)
        throw new KernelError(KernelErrorCode.Conflict, 'A directory of this write was removed while it was written', {
          retryable: true,
        });
      const again = await ensureDirectories(tx, identity, dirs, attempt + 1);
      for (const uri of again) created.add(uri);
    }
  }
  return uris.filter((u) => created.has(u)).sort((a, b) => a.length - b.length);
}

/** Times a write makes its directories again when one is removed under it, before it gives up (409, retryable). */
const ENSURE_ATTEMPTS = 3;

// Rows are locked in URI order, so two batches touching the same files cannot deadlock each other; NO KEY (an
// update changes no key), so a row another writer holds FOR KEY SHARE as its directory does not wait.
async function lockExisting(tx: Tx, identity: Identity, uris: string[]): Promise<Map<string, Existing>> {
  const scope = scopeSql(identity, 2);
  const { rows } = await tx.query<Existing>(
    `SELECT uri, kind, content, tags FROM nodes WHERE uri = ANY($1::text[]) AND ${scope.sql} ORDER BY uri FOR NO KEY UPDATE`,
    [uris, ...scope.params],
  );
  return new Map(rows.map((r) => [r.uri, r]));
}

/** Inserts new files; returns the URIs another transaction created first (their rows are not ours). */
async function insertFiles(
  tx: Tx,
  identity: Identity,
  files: { uri: string; content: string; tags: string[] }[],
  rev: number,
): Promise<string[]> {
  if (files.length === 0) return [];
  const sorted = [...files].sort((a, b) => (a.uri < b.uri ? -1 : 1));
  const paths = sorted.map((f) => nodePath(f.uri));
  // text[][] must be rectangular, so tags travel as JSON text and are unpacked per row.
  const { rows } = await tx.query<{ uri: string }>(
    `INSERT INTO nodes (account_id, uri, parent_uri, kind, context_type, owner_user_id, peer_id, content, tags, rev)
     SELECT $1, u.uri, u.parent, 'file', u.ctype, u.owner, u.peer, u.content,
            ARRAY(SELECT jsonb_array_elements_text(u.tags::jsonb)), $9
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
          AS u(uri, parent, ctype, owner, peer, content, tags)
     ON CONFLICT (account_id, uri) DO NOTHING RETURNING uri`,
    [
      identity.accountId,
      sorted.map((f) => f.uri),
      paths.map((p) => p.parentUri),
      paths.map((p) => p.contextType),
      paths.map((p) => p.ownerUserId),
      paths.map((p) => p.peerId),
      sorted.map((f) => f.content),
      sorted.map((f) => JSON.stringify(f.tags)),
      rev,
    ],
  );
  if (rows.length === sorted.length) return [];
  const won = new Set(rows.map((r) => r.uri));
  return sorted.filter((f) => !won.has(f.uri)).map((f) => f.uri);
}

async function updateFiles(tx: Tx, identity: Identity, files: Update[], rev: number) {
  if (files.length === 0) return;
  await tx.query(
    `UPDATE nodes n SET content = u.content,
       tags = CASE WHEN u.tags IS NULL THEN n.tags ELSE ARRAY(SELECT jsonb_array_elements_text(u.tags::jsonb)) END,
       updated_at = now(), indexed_at = NULL, rev = $5
     FROM unnest($2::text[], $3::text[], $4::text[]) AS u(uri, content, tags)
     WHERE n.account_id = $1 AND n.uri = u.uri`,
    [
      identity.accountId,
      files.map((f) => f.uri),
      files.map((f) => f.content),
      files.map((f) => (f.tags ? JSON.stringify(f.tags) : null)),
      rev,
    ],
  );
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
