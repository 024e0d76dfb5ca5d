import { archiveName } from './commit-plan';
import { MemoryRouting } from './memory-routing';
import { SessionMessage } from './session-message';

/** What an extractor reads: one archive of one session. */
export interface ExtractionInput {
  userId: string;
  sessionId: string;
  /** Hex SHA-256 of `sessionId`, from the caller: event file names carry it when the id's slug is lossy (`sessionFileKey`). */
  sessionDigest: string;
  archiveIndex: number;
  /**
   * The extraction's name in its event files and `source_extraction_id`: absent for a commit (its archive,
   * `archive_NNN`); a manual extraction's `manual_<session created_at>` ({@link manualExtractionName}).
   */
  extractionName?: string;
  messages: SessionMessage[];
  /** ISO time of the commit: the date of events whose messages carry no date of their own. */
  nowIso: string;
  /** The previous archive's overview (carried into the next summary). */
  previousOverview: string;
  /** Commit-time event tags (`k=v`), attached to event memories as tags. */
  eventTags: string[];
  /** Where memories may go (self, allowed peers); absent: the user's own space only. */
  routing?: MemoryRouting;
}

/** A memory file an extractor proposes, relative to its space's `memories/` (see `peerId`). */
export interface ProposedMemory {
  path: string;
  memoryType: 'events' | 'entities' | 'preferences' | 'profile';
  /** The whole file for events and model-written pages; quote lines to merge for offline entities/preferences. */
  content: string;
  /** `merge`: quote lines appended to what the file holds (each once); `replace`: the file's new content. */
  mode: 'merge' | 'replace';
  /** Heading of a merged file when it is created. */
  title?: string;
  tags?: string[];
  /** The peer whose memory space the file belongs to (`peers/<id>/memories/`); absent: the user's own. */
  peerId?: string;
}

/** An extractor's answer: memories plus the archive summary. */
export interface Extraction {
  memories: ProposedMemory[];
  overview: string;
  abstract: string;
}

/** Bounds of the offline extractor (defaults measured with bench:locomo). */
export interface OfflineExtractorOptions {
  /** Event memories are parts of at most about this many ChatLog tokens. */
  partTokens: number;
  /** Lead summary of a part: its opening turns, up to about this many tokens. */
  leadTokens: number;
  /** Quotes kept per entity or preference file in one archive. */
  quotesPerFile: number;
  /** Entity and preference files made from one archive. */
  maxFiles: number;
}

// Measured on LoCoMo dev (bench:locomo): parts of ~200 tokens fit ten to a 1600-token block at full
// detail, and a lead summary of ~60 tokens makes parts served at overview tier still carry whole turns.
export const DEFAULT_OFFLINE_EXTRACTOR: OfflineExtractorOptions = {
  partTokens: 200,
  leadTokens: 60,
  quotesPerFile: 5,
  maxFiles: 40,
};

/** The name an extraction gives its event files: its archive's, or the one a manual extraction was given. */
export function extractionName(input: Pick<ExtractionInput, 'archiveIndex' | 'extractionName'>): string {
  return input.extractionName ?? archiveName(input.archiveIndex);
}

/**
 * A manual extraction's name (docs/sessions.md "Manual extraction"): the session's creation time, so a
 * repeat over one session's live messages rewrites its own files, and a session deleted and created
 * again under the same id never writes over the events the deleted one's extraction wrote.
 */
export function manualExtractionName(sessionCreatedAt: string): string {
  const t = new Date(sessionCreatedAt);
  if (Number.isNaN(t.getTime())) throw new Error(`manualExtractionName needs a time, got ${sessionCreatedAt}`);
  return `manual_${t.toISOString().replace(/[-:.]/g, '').toLowerCase()}`;
}
