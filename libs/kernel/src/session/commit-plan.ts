/** Name of archive `index` under a session's `history/`: `archive_001`, …, `archive_1000`. */
export function archiveName(index: number): string {
  return `archive_${String(index).padStart(3, '0')}`;
}

/** The index of an `archive_<int>` name, or null for anything else. */
export function parseArchiveName(name: string): number | null {
  const m = /^archive_(\d{1,9})$/.exec(name);
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 ? n : null;
}

/**
 * The next archive's index: one past the commit count, the highest archive and the highest index the
 * session id ever used (`mark`, kept past a deletion of the session): a number is never used twice by
 * one session id of a user, so its event files never land on an earlier session's (docs/sessions.md,
 * "Archive numbers").
 */
export function nextArchiveIndex(commitCount: number, highestArchive: number, mark = 0): number {
  return Math.max(commitCount, highestArchive, mark) + 1;
}

export type CommitPlan =
  | { kind: 'skip'; reason: 'no_messages' | 'all_within_keep_window' }
  | { kind: 'archive'; archiveCount: number; keep: number };

/** What a commit takes from `live` messages: the oldest `live − keep` are archived, the newest `keep` stay. */
export function planCommit(live: number, keepRecentCount: number): CommitPlan {
  if (live === 0) return { kind: 'skip', reason: 'no_messages' };
  const keep = Math.max(0, keepRecentCount);
  if (live <= keep) return { kind: 'skip', reason: 'all_within_keep_window' };
  return { kind: 'archive', archiveCount: live - keep, keep };
}
