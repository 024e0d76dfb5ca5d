import { Injectable, Logger } from '@nestjs/common';
import {
  Candidate,
  ContentRead,
  contentUriFor,
  Identity,
  normalizeReadContent,
  openContext,
  PLAN_BODY_MAX_CHARS,
  sidecarDirectory,
  withinTotal,
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

  /**
   * `maxChars` of each body at most (`bodyReadChars`), and no more than a plan works over in all
   * (`PLAN_BODY_MAX_CHARS`, docs/limits-and-security.md "Work per byte"): when the reads could exceed it, their
   * stored sizes are looked up first and only the best-ranked bodies within it are read.
   */
  async read(
    identity: Identity,
    reads: ContentRead[],
    candidates: Candidate[],
    maxChars: number,
  ): Promise<Map<string, string>> {
    if (reads.length * maxChars > PLAN_BODY_MAX_CHARS) reads = await this.withinTotal(identity, reads, maxChars);
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

  /** The reads, in rank order, whose bodies (at most `maxChars` each) fit `PLAN_BODY_MAX_CHARS` together. */
  private async withinTotal(identity: Identity, reads: ContentRead[], maxChars: number): Promise<ContentRead[]> {
    const sizes = new Map<string, number>();
    await Promise.all(
      [false, true].map(async (open) => {
        const group = reads.filter((r) => r.openContext === open);
        if (group.length === 0) return;
        const who = open ? openContext(identity) : identity;
        const bytes = await this.nodes
          .textBytes(
            who,
            group.map((r) => sidecarDirectory(r.uri) ?? r.uri),
          )
          .catch((err: unknown) => {
            this.logger.warn(`sizing ${group.length} bodies failed: ${err instanceof Error ? err.message : err}`);
            return new Map<string, { content: number; overview: number }>();
          });
        for (const r of group) {
          const dir = sidecarDirectory(r.uri);
          const size = bytes.get(dir ?? r.uri);
          if (size) sizes.set(r.uri, Math.min(maxChars, dir !== null ? size.overview : size.content));
        }
      }),
    );
    return withinTotal(reads, (r) => sizes.get(r.uri), PLAN_BODY_MAX_CHARS);
  }
}
