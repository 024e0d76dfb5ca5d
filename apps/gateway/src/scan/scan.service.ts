import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { GrepMatch, ScanJob, ScanResult } from '@app/contracts';
import {
  canonicalizeUri,
  canRead,
  globToRegex,
  Identity,
  isStandingDirectory,
  KernelError,
  KernelErrorCode,
  permissionDenied,
  toSafeRegex,
} from '@app/kernel';
import { ScanClient } from '@app/queue';
import { AdmissionService } from '../http/admission.service';
import { GlobRequestDto, GrepRequestDto } from './dto/scan.dto';

/**
 * Grep and glob (docs/fs-and-mcp.md, "Grep and glob"). The gateway checks and translates the pattern
 * (linear, bounded) and the retriever runs the scan as a `scan` job, so the event loop never scans.
 */
@Injectable()
export class ScanService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly scans: ScanClient,
    private readonly admission: AdmissionService,
  ) {}

  async grep(caller: Identity, dto: GrepRequestDto) {
    if (!dto.pattern) {
      throw new KernelError(KernelErrorCode.InvalidArgument, 'pattern must not be empty', { field: 'pattern' });
    }
    const uri = this.readable(caller, dto.uri);
    const regex = toSafeRegex(dto.pattern, 'pattern', this.config.filter.maxPatternLength);
    const exclude = dto.exclude_uri ? canonicalizeUri(dto.exclude_uri, caller.userId) : null;
    const result = await this.call({
      kind: 'grep',
      identity: caller,
      uri,
      regex,
      caseInsensitive: dto.case_insensitive ?? false,
      levelLimit: dto.level_limit ?? 10,
      excludeUri: exclude,
      maxFiles: this.config.fs.scanMaxFiles,
      maxLines: this.bound(dto.node_limit ?? 256),
      maxBytes: this.config.fs.scanMaxBytes,
      maxLineChars: this.config.fs.scanMaxLineChars,
    });
    if (result.kind !== 'grep' || !this.exists(caller, uri, result.found)) throw notFound(uri);
    const n = result.matches.length;
    // New keys after the reference's: files left unread by MUNINN_SCAN_MAX_BYTES or MUNINN_SCAN_MAX_FILES
    // (docs/fs-and-mcp.md, "Grep and glob").
    const skipped = result.filesSkipped;
    return {
      matches: result.matches,
      count: n,
      match_count: n,
      files_scanned: result.filesScanned,
      files_skipped: skipped,
      truncated: skipped > 0,
    };
  }

  async glob(caller: Identity, dto: GlobRequestDto) {
    if (!dto.pattern?.trim()) {
      // The reference's message: its glob shares the search route's empty-query check.
      const message = 'Search query or image_url must not be empty.';
      throw new KernelError(KernelErrorCode.InvalidArgument, message, { field: 'pattern' });
    }
    const uri = this.readable(caller, dto.uri ?? 'viking://');
    const regex = globToRegex(dto.pattern, 'pattern', this.config.filter.maxPatternLength);
    const limit = this.bound(dto.node_limit ?? 256);
    const result = await this.call({ kind: 'glob', identity: caller, uri, regex, limit });
    if (result.kind !== 'glob' || !this.exists(caller, uri, result.found)) throw notFound(uri);
    return { matches: result.matches, count: result.matches.length };
  }

  /** Grep lines, grouped by file in first-seen order (the MCP text's shape). */
  static byFile(matches: GrepMatch[]): Map<string, GrepMatch[]> {
    const out = new Map<string, GrepMatch[]>();
    for (const m of matches) out.set(m.uri, [...(out.get(m.uri) ?? []), m]);
    return out;
  }

  private readable(caller: Identity, raw: string): string {
    const uri = canonicalizeUri(raw, caller.userId);
    if (!canRead(caller, uri)) throw permissionDenied(`Access denied for ${uri}`, uri);
    return uri;
  }

  /** A standing directory not yet written scans as empty (docs/fs-and-mcp.md, "Standing directories"). */
  private exists(caller: Identity, uri: string, found: boolean): boolean {
    return found || isStandingDirectory(caller, uri);
  }

  /** null, 0 or negative mean "unlimited", which is the server bound; anything above it is capped. */
  private bound(limit: number | null): number {
    const max = this.config.fs.scanMaxResults;
    return limit === null || limit <= 0 ? max : Math.min(limit, max);
  }

  /** One scan on the retriever, in one of the account's scan slots (REST and each MCP pattern alike). */
  private call(job: ScanJob): Promise<ScanResult> {
    const deadline = this.config.queues.requestDeadlineMs;
    // Failures arrive decoded by the bus, as the KernelError the retriever reported.
    return this.admission.inScanLane(job.identity, deadline, () => this.scans.call(job, deadline));
  }
}

function notFound(uri: string): KernelError {
  return new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
}
