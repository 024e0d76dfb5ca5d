import { Injectable } from '@nestjs/common';
import { GlobScan, GrepMatch, GrepScan, ScanJob, ScanResult } from '@app/contracts';
import { stripMemoryFields } from '@app/kernel';
import { NodeListRepository, NodeRepository, NodeScanRepository } from '@app/store';

/** Runs grep and glob scans (docs/fs-and-mcp.md, "Grep and glob"); patterns arrive checked and translated. */
@Injectable()
export class ScanService {
  constructor(
    private readonly scans: NodeScanRepository,
    private readonly listing: NodeListRepository,
    private readonly nodes: NodeRepository,
  ) {}

  /** `signal`: the job was withdrawn; its scan statement is cancelled (QueryOptions.signal). */
  run(job: ScanJob, signal?: AbortSignal): Promise<ScanResult> {
    return job.kind === 'grep' ? this.grep(job, signal) : this.glob(job, signal);
  }

  private async grep(job: GrepScan, signal?: AbortSignal): Promise<ScanResult> {
    const base = job.uri === 'viking://' ? true : await this.listing.entry(job.identity, job.uri);
    if (!base) return { kind: 'grep', matches: [], filesScanned: 0, filesSkipped: 0, found: false };
    const { rows, filesScanned, filesSkipped } = await this.scans.grep(
      job.identity,
      {
        uri: job.uri,
        regex: job.regex,
        caseInsensitive: job.caseInsensitive,
        levelLimit: job.levelLimit,
        excludeUri: job.excludeUri,
        maxFiles: job.maxFiles,
        maxLines: job.maxLines,
        maxBytes: job.maxBytes,
        maxLineChars: job.maxLineChars,
      },
      signal,
    );
    // Line numbers refer to the visible text: matches inside a memory file's MEMORY_FIELDS trailer go.
    const memoryFiles = [...new Set(rows.filter((r) => r.contextType === 'memory').map((r) => r.uri))];
    const visibleLines = new Map<string, number>();
    for (const node of await this.nodes.getMany(job.identity, memoryFiles)) {
      visibleLines.set(node.uri, stripMemoryFields(node.content).split('\n').length);
    }
    const matches: GrepMatch[] = rows
      .filter((r) => !visibleLines.has(r.uri) || r.line <= visibleLines.get(r.uri)!)
      .map((r) => ({ uri: r.uri, line: r.line, content: r.content }));
    return { kind: 'grep', matches, filesScanned, filesSkipped, found: true };
  }

  private async glob(job: GlobScan, signal?: AbortSignal): Promise<ScanResult> {
    const base = job.uri === 'viking://' ? true : await this.listing.entry(job.identity, job.uri);
    if (!base) return { kind: 'glob', matches: [], found: false };
    const rows = await this.scans.glob(job.identity, job.uri, job.regex, job.limit, signal);
    // Sorted by path components, so `a/b` comes before `a-b` (plain text order would not).
    const matches = rows.map((r) => r.uri).sort((a, b) => compareSegments(a.split('/'), b.split('/')));
    return { kind: 'glob', matches, found: true };
  }
}

function compareSegments(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}
