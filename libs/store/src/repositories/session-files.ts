import { Identity, stripMemoryFields } from '@app/kernel';
import { Db } from '../db/db.port';
import { ensureDirectories, WriteManyOutcome, writeNodes, WriteOp, WriteOptions } from './node-write';
import { nodePath } from './node-path';
import { sessionUri } from './session-rows';

type Tx = Pick<Db, 'query' | 'kind'>;
type Owner = Pick<Identity, 'accountId' | 'userId'>;

/** One file of an archive directory, by name (`messages.jsonl`, `memory_diff.json`, `.done`, …). */
export interface ArchiveFile {
  name: string;
  content: string;
}

const asIdentity = (o: Owner): Identity => ({
  accountId: o.accountId,
  userId: o.userId,
  role: 'user',
  actorPeerId: null,
});

/**
 * Writes archive files into the fs tree under `…/sessions/<sid>/history/archive_NNN/` (docs/sessions.md
 * "Archives as files"), so ls, tree, read and grep reach them as the plugins expect. They are written
 * straight into `nodes` without an outbox entry: session history is not search content (it is never
 * embedded or ranked by context search), only browsable and greppable. `summary` sets the archive
 * directory's abstract and overview (its `.abstract.md` / `.overview.md`).
 */
export async function writeArchiveFiles(
  tx: Tx,
  owner: Owner,
  archiveDirUri: string,
  files: ArchiveFile[],
  summary?: { abstract: string; overview: string },
): Promise<void> {
  await ensureDirectories(tx, asIdentity(owner), [archiveDirUri]);
  if (files.length > 0) {
    const uris = files.map((f) => `${archiveDirUri}/${f.name}`);
    const paths = uris.map((u) => nodePath(u));
    await tx.query(
      `INSERT INTO nodes (account_id, uri, parent_uri, kind, context_type, owner_user_id, peer_id, content)
       SELECT $1, u.uri, u.parent, 'file', u.ctype, u.owner, u.peer, u.content
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
            AS u(uri, parent, ctype, owner, peer, content)
       ORDER BY u.uri
       ON CONFLICT (account_id, uri) DO UPDATE SET content = EXCLUDED.content, updated_at = now()
         WHERE nodes.kind = 'file'`,
      [
        owner.accountId,
        uris,
        paths.map((p) => p.parentUri),
        paths.map((p) => p.contextType),
        paths.map((p) => p.ownerUserId),
        paths.map((p) => p.peerId),
        files.map((f) => f.content),
      ],
    );
  }
  if (summary) {
    await tx.query(
      `UPDATE nodes SET abstract = $3, overview = $4, updated_at = now()
       WHERE account_id = $1 AND uri = $2 AND kind = 'directory'`,
      [owner.accountId, archiveDirUri, summary.abstract, summary.overview],
    );
  }
}

/** Removes a session's file tree (its archives); part of deleting the session. */
export async function deleteSessionFiles(tx: Tx, owner: Owner, sessionId: string): Promise<void> {
  const root = sessionUri(owner.userId, sessionId);
  await tx.query('DELETE FROM nodes WHERE account_id = $1 AND (uri = $2 OR starts_with(uri, $3))', [
    owner.accountId,
    root,
    `${root}/`,
  ]);
}

/** Archived messages as the contract's `messages.jsonl`: one JSON object per line. */
export function messagesJsonl(messages: unknown[]): string {
  return messages.map((m) => JSON.stringify(m)).join('\n') + (messages.length ? '\n' : '');
}

/** An extraction's memory writes, with the files' contents before and after them (for `memory_diff.json`). */
export interface ExtractionWrite {
  written: WriteManyOutcome;
  before: Map<string, string>;
  after: Map<string, string>;
}

/**
 * Writes an extraction's memory files in the caller's transaction. `after` is read back there: a merged
 * file holds what another writer added a moment earlier too. No writes, no statements.
 */
export async function writeExtraction(
  tx: Tx,
  identity: Identity,
  writes: WriteOp[],
  opts: WriteOptions = {},
): Promise<ExtractionWrite> {
  if (writes.length === 0)
    return { written: { items: [], createdDirectories: [], index: null }, before: new Map(), after: new Map() };
  const before = await contentsOf(
    tx,
    identity.accountId,
    writes.map((w) => w.uri),
  );
  const written = await writeNodes(tx, identity, writes, opts);
  const changed = written.items.filter((i) => i.changed).map((i) => i.uri);
  return { written, before, after: await contentsOf(tx, identity.accountId, changed) };
}

/** Current contents of the files among `uris`. */
async function contentsOf(tx: Tx, accountId: string, uris: string[]): Promise<Map<string, string>> {
  if (uris.length === 0) return new Map();
  const { rows } = await tx.query<{ uri: string; content: string }>(
    `SELECT uri, content FROM nodes WHERE account_id = $1 AND uri = ANY($2::text[]) AND kind = 'file'`,
    [accountId, uris],
  );
  return new Map(rows.map((r) => [r.uri, r.content]));
}

const memoryType = (uri: string) => /\/memories\/([^/.]+)/.exec(uri)?.[1] ?? 'memories';

/**
 * The contract's `memory_diff.json` of one extraction: the files it created (`adds`) and changed
 * (`updates`, with the body before), bodies without their MEMORY_FIELDS trailer.
 */
export function memoryDiff(
  archiveUri: string,
  { written: w, before, after }: ExtractionWrite,
): Record<string, unknown> {
  const visible = (s: string) => stripMemoryFields(s).trim();
  const adds = w.items
    .filter((i) => i.created)
    .map((i) => ({ uri: i.uri, memory_type: memoryType(i.uri), after: visible(after.get(i.uri) ?? '') }));
  const updates = w.items
    .filter((i) => !i.created && i.changed)
    .map((i) => ({
      uri: i.uri,
      memory_type: memoryType(i.uri),
      before: visible(before.get(i.uri) ?? ''),
      after: visible(after.get(i.uri) ?? ''),
    }));
  return {
    archive_uri: archiveUri,
    trace_id: null,
    extracted_at: new Date().toISOString(),
    operations: { adds, updates, deletes: [] },
    summary: { total_adds: adds.length, total_updates: updates.length, total_deletes: 0 },
  };
}
