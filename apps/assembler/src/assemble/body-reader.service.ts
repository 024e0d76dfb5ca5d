import { Injectable, Logger } from '@nestjs/common';
import {
  Candidate,
  ContentRead,
  contentUriFor,
  Identity,
  normalizeReadContent,
  openContext,
  sidecarDirectory,
} from '@app/kernel';
import { NodeRepository } from '@app/store';

/**
 * Reads the bodies the read policy asked for, each content URI once, in at most two queries
 * (the caller's view and the open view for other-peer candidates) instead of one read per body.
 * A body that cannot be read is simply absent: its tiers become unavailable, never an error; the
 * store failure behind it is logged (never swallowed silently).
 */
@Injectable()
export class BodyReaderService {
  private readonly logger = new Logger(BodyReaderService.name);

  constructor(private readonly nodes: NodeRepository) {}

  /** `maxChars` of each body at most (`bodyReadChars`, docs/limits-and-security.md "Work per byte"). */
  async read(
    identity: Identity,
    reads: ContentRead[],
    candidates: Candidate[],
    maxChars: number,
  ): Promise<Map<string, string>> {
    const contents = new Map<string, string>();
    const groups: [Identity, ContentRead[]][] = [
      [identity, reads.filter((r) => !r.openContext)],
      [openContext(identity), reads.filter((r) => r.openContext)],
    ];
    const byContentUri = new Map(candidates.map((c) => [contentUriFor(c), c]));
    await Promise.all(
      groups.map(async ([who, group]) => {
        if (group.length === 0) return;
        const nodeUris = group.map((r) => sidecarDirectory(r.uri) ?? r.uri);
        const nodes = await this.nodes.getMany(who, nodeUris, maxChars).catch((err: unknown) => {
          const why = err instanceof Error ? err.message : String(err);
          this.logger.warn(`reading ${nodeUris.length} bodies failed, planning without them: ${why}`);
          return [];
        });
        const byUri = new Map(nodes.map((n) => [n.uri, n]));
        for (const r of group) {
          const dir = sidecarDirectory(r.uri);
          const node = byUri.get(dir ?? r.uri);
          const candidate = byContentUri.get(r.uri);
          if (!node || !candidate) continue;
          const raw = dir !== null ? node.overview : node.kind === 'file' ? node.content : '';
          contents.set(r.uri, normalizeReadContent(candidate, raw));
        }
      }),
    );
    return contents;
  }
}
