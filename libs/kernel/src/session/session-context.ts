import { estimateTokens } from '../budget/token-estimate';
import { messageTokens, SessionMessage } from './session-message';

/** The `/context` view of a session (docs/sessions.md "Session context"). */
export interface SessionContextView {
  latest_archive_overview: string;
  pre_archive_abstracts: string[];
  messages: SessionMessage[];
  estimatedTokens: number;
  stats: {
    totalArchives: number;
    includedArchives: number;
    droppedArchives: number;
    failedArchives: number;
    activeTokens: number;
    archiveTokens: number;
  };
}

/** An archive as `/context` needs it, newest first. */
export interface ArchiveState {
  status: 'pending' | 'done' | 'failed';
  overview: string;
  overviewTokens: number;
  messages: SessionMessage[];
}

/**
 * Builds the context view from the archives newest first (at least up to the newest finished one;
 * `totalArchives` counts them all): the overview of the newest finished archive, the messages of newer pending
 * archives plus the live ones, fitted into `budget` newest-first (whole messages), and the overview
 * only if it fits in what the messages leave.
 */
export function sessionContext(
  archivesNewestFirst: ArchiveState[],
  live: SessionMessage[],
  budget: number,
  totalArchives = archivesNewestFirst.length,
): SessionContextView {
  const pending: SessionMessage[][] = [];
  let terminal: ArchiveState | null = null;
  for (const a of archivesNewestFirst) {
    if (a.status === 'pending') pending.push(a.messages);
    else {
      terminal = a;
      break;
    }
  }
  const seen = new Set<string>();
  const all = [...pending.reverse().flat(), ...live].filter((m) => (seen.has(m.id) ? false : (seen.add(m.id), true)));
  const kept: SessionMessage[] = [];
  let active = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const t = messageTokens(all[i]);
    if (active + t > budget) break;
    active += t;
    kept.unshift(all[i]);
  }
  const usable = terminal?.status === 'done' && terminal.overview.trim() !== '';
  const failed = terminal !== null && !usable ? 1 : 0;
  const overviewTokens = usable ? Math.max(estimateTokens(terminal!.overview), terminal!.overviewTokens) : 0;
  const include = usable && overviewTokens <= budget - active;
  const total = totalArchives;
  return {
    latest_archive_overview: include ? terminal!.overview : '',
    pre_archive_abstracts: [],
    messages: kept,
    estimatedTokens: active + (include ? overviewTokens : 0),
    stats: {
      totalArchives: total,
      includedArchives: 0,
      droppedArchives: total - failed,
      failedArchives: failed,
      activeTokens: active,
      archiveTokens: include ? overviewTokens : 0,
    },
  };
}
