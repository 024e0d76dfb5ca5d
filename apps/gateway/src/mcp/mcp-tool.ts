import type { AppConfig } from '@app/config';
import type { Identity } from '@app/kernel';
import type { ContentService } from '../content/content.service';
import type { UploadService } from '../content/upload.service';
import type { FsService } from '../fs/fs.service';
import type { ContextSearchService } from '../context/context-search.service';
import type { FindService } from '../find/find.service';
import type { ScanService } from '../scan/scan.service';
import type { SessionCommitService } from '../sessions/session-commit.service';
import type { SessionsService } from '../sessions/sessions.service';
import type { HealthService } from '../system/health.service';
import type { McpReadService } from './mcp-read.service';
import type { Args } from './tool-args';
import type { PropSpec } from './tool-schema';

/** The services a tool may call; each tool calls the same service its REST route calls. */
export interface ToolDeps {
  config: AppConfig;
  finder: FindService;
  context: ContextSearchService;
  reader: McpReadService;
  content: ContentService;
  fs: FsService;
  scans: ScanService;
  health: HealthService;
  sessions: SessionsService;
  commits: SessionCommitService;
  uploads: UploadService;
  /**
   * Counts `points` more requests against the caller's rate limits, for a call that does the work of
   * several (docs/limits-and-security.md, "Rate limits and fairness"); 429 error when over.
   */
  charge(caller: Identity, points: number): Promise<void>;
}

/** Per-request facts a tool may need besides its arguments. */
export interface ToolContext {
  /** Origin for links handed out when MUNINN_PUBLIC_BASE_URL is unset (request-origin.ts). */
  origin: string;
  /** Aborted when the MCP request's client goes away: a read-only tool's work stops then. */
  abandoned?: AbortSignal;
}

/**
 * A tool's answer: plain text, or text with the REST result beside it (`structured`). A thrown error
 * becomes an `isError` result; some tools answer failures as ordinary text instead (their contract).
 */
export type ToolOutput = string | { text: string; structured?: Record<string, unknown>; isError?: boolean };

/** One row of the tool table. */
export interface McpTool {
  name: string;
  description: string;
  props: Record<string, PropSpec>;
  required?: string[];
  /**
   * The tool only reads: it stops when its client goes away, as the REST reads do (docs/limits-and-security.md,
   * "A client that goes away"); a writing tool runs to its end.
   */
  readOnly?: true;
  run(caller: Identity, args: Args, deps: ToolDeps, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * A writing tool that can wait for its indexing: its answer built from its write route's answer, for a retry
   * (same idempotency key) that waited again for the indexing of a write whose first wait ran out (mcp-idempotency.ts).
   */
  resumed?(answer: Record<string, unknown>): ToolOutput;
}
