import type { Identity } from '@app/kernel';

/**
 * Payload of a `scan` job: one grep or glob over a caller's tree, with the pattern already checked and
 * translated by the gateway (a regex in the safe subset; a glob as an anchored regex) and every bound
 * resolved, so the retriever only runs the statement (docs/fs-and-mcp.md, "Grep and glob").
 */
export type ScanJob = GrepScan | GlobScan;

export interface GrepScan {
  kind: 'grep';
  identity: Identity;
  uri: string;
  regex: string;
  caseInsensitive: boolean;
  levelLimit: number;
  excludeUri: string | null;
  maxFiles: number;
  maxLines: number;
  /** Content bytes read at most, whole files in URI order (docs/fs-and-mcp.md, "Grep and glob"). */
  maxBytes: number;
  /** Characters of one returned line at most; a longer line is cut around its match. */
  maxLineChars: number;
}

export interface GlobScan {
  kind: 'glob';
  identity: Identity;
  uri: string;
  regex: string;
  limit: number;
}

export interface GrepMatch {
  uri: string;
  line: number;
  content: string;
}

export type ScanResult =
  | { kind: 'grep'; matches: GrepMatch[]; filesScanned: number; filesSkipped: number; found: boolean }
  | { kind: 'glob'; matches: string[]; found: boolean };
