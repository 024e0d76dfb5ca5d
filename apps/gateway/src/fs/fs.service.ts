import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  assertDeletable,
  assertSubtreeChangeable,
  baseName,
  canWrite,
  canonicalizeUri,
  Identity,
  isStandingDirectory,
  isTagPair,
  KernelError,
  KernelErrorCode,
  normalizeSearchTags,
  readMemoryFields,
  treeOrder,
  trimEndChar,
  userRoot,
} from '@app/kernel';
import { NodeEntry, NodeFsRepository, NodeListRepository, NodeRepository } from '@app/store';
import { ContentService } from '../content/content.service';
import { BacklogService } from '../http/backlog.service';
import { IndexDispatchService } from '../content/index-dispatch.service';
import { answerAfterIndex } from '../content/index-answers';
import { LsQueryDto, SetTagsDto, TreeQueryDto } from './dto/fs.dto';

const USER_CONTAINER = 'viking://user';
const DIR_MODE = 0o40755;
const FILE_MODE = 0o644;
/** Extra rows a listing reads so hidden files dropped after the query rarely leave it short. */
const HIDDEN_SLACK = 64;

/** Directory listing, tree, stat, attrs, mkdir, mv and delete over the `viking://` tree. Listings never load bodies. */
@Injectable()
export class FsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly nodes: NodeRepository,
    private readonly content: ContentService,
    private readonly dispatcher: IndexDispatchService,
    private readonly listing: NodeListRepository,
    private readonly fsOps: NodeFsRepository,
    private readonly backlog: BacklogService,
  ) {}

  async ls(caller: Identity, q: LsQueryDto) {
    const uri = this.listableUri(caller, q.uri);
    // At most the tree bound, as a walk: a recursive listing of 100,000 entries read that many rows.
    const limit = Math.min(q.limit ?? q.node_limit ?? 1000, this.config.fs.treeMaxNodes);
    // Sorting happens before the limit, so a sorted listing reads up to the tree bound first.
    const fetch = { recursive: q.recursive, limit: q.sort_by ? this.config.fs.treeMaxNodes : limit + HIDDEN_SLACK };
    let items: NodeEntry[];
    if (uri === USER_CONTAINER && caller.role !== 'root') {
      // Users and admins see only their own space in the container of user spaces (docs/fs-and-mcp.md).
      const own = await this.listing.entry(caller, userRoot(caller.userId));
      items = own ? [own] : [];
      if (q.recursive && own) items.push(...(await this.listing.entries(caller, own.uri, fetch)));
    } else {
      await this.requireDirectory(caller, uri);
      items = await this.listing.entries(caller, uri, fetch);
    }
    if (!q.show_all_hidden) items = items.filter((n) => n.kind === 'directory' || !baseName(n.uri).startsWith('.'));
    if (q.sort_by) items = sortEntries(items, q.sort_by, q.sort_order ?? 'asc');
    items = items.slice(0, Math.max(0, limit));
    if (q.simple) return items.map((n) => n.uri);
    const rel = (n: NodeEntry) => (q.recursive ? { rel_path: relPath(uri, n.uri) } : {});
    return items.map((n) =>
      q.output === 'original' ? originalEntry(n, rel(n), !q.recursive) : agentEntry(n, rel(n), q.abs_limit ?? 256),
    );
  }

  /** Depth-first tree below a directory (docs/fs-and-mcp.md, "Tree"). */
  async tree(caller: Identity, q: TreeQueryDto) {
    const { entries } = await this.walk(caller, q);
    return entries.map((n) => {
      const rel = { rel_path: n.rel };
      return q.output === 'original' ? originalEntry(n, rel, false) : agentEntry(n, rel, q.abs_limit ?? 256);
    });
  }

  /** The ordered, limited walk behind `tree` (also used by the MCP `tree` tool). */
  async walk(
    caller: Identity,
    q: Pick<TreeQueryDto, 'uri' | 'node_limit' | 'limit' | 'level_limit' | 'show_all_hidden'>,
  ) {
    const uri = this.listableUri(caller, q.uri);
    await this.requireDirectory(caller, uri);
    const max = this.config.fs.treeMaxNodes;
    const nodeLimit = Math.min(q.limit ?? q.node_limit ?? 1000, max);
    const all = await this.listing.entries(caller, uri, { recursive: true, limit: max });
    const { entries, truncated } = treeOrder(uri, all, {
      levelLimit: q.level_limit ?? 3,
      nodeLimit,
      showHidden: q.show_all_hidden ?? false,
    });
    return { uri, entries, truncated, nodeLimit };
  }

  async stat(caller: Identity, raw: string) {
    const uri = this.content.readableUri(caller, raw);
    const n = await this.listing.entry(caller, uri);
    if (!n) throw new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
    const isDir = n.kind === 'directory';
    return {
      uri,
      name: baseName(uri),
      size: isDir ? 0 : n.size,
      mode: isDir ? DIR_MODE : FILE_MODE,
      modTime: n.updatedAt,
      isDir,
      isLocked: await this.listing.indexPending(caller.accountId, uri),
      ...(isDir ? { count: await this.listing.countUnder(caller, uri) } : {}),
    };
  }

  /** Retrieval tags (strict `k=v` only) and, for memory files, the MEMORY_FIELDS metadata. */
  async attrs(caller: Identity, raw: string) {
    const uri = this.content.readableUri(caller, raw);
    const node = await this.nodes.get(caller, uri);
    if (!node)
      throw new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
    const tags = node.tags.filter((t) => /^[^=]+=[^=]+$/.test(t));
    const memory = node.kind === 'file' && node.contextType === 'memory' ? readMemoryFields(node.content) : null;
    return { uri, context_type: node.contextType, attrs: { tags, ...(memory ? { memory } : {}) } };
  }

  async setTags(caller: Identity, dto: SetTagsDto) {
    const uri = this.content.readableUri(caller, dto.uri);
    // Tags steer every reader's search filters: changing them is a write (a user retagged the admins' agent
    // space, and the shared resources tree recursively, with read access alone), as a reindex's tags are.
    if (!canWrite(caller, uri))
      throw new KernelError(KernelErrorCode.PermissionDenied, `Access denied for ${uri}`, { resource: uri });
    const node = await this.nodes.get(caller, uri);
    if (!node)
      throw new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
    if (node.kind === 'directory' && dto.recursive) assertSubtreeChangeable(caller, uri, 'Tagging');
    const tags = validTags(dto.tags);
    const mode = dto.mode ?? 'replace';
    const updated = await this.fsOps.setTags(
      caller,
      uri,
      tags,
      mode,
      dto.recursive ?? false,
      this.config.fs.treeMaxNodes,
    );
    return {
      uri,
      updated_uris: updated,
      root_uri: uri,
      context_type: node.contextType,
      tags,
      mode,
      success_count: updated.length,
      skipped_count: 0,
      failed_count: 0,
      tags_updated: updated.length > 0,
    };
  }

  async mkdir(caller: Identity, raw: string, description?: string) {
    const uri = this.content.readableUri(caller, raw);
    const existing = await this.nodes.get(caller, uri);
    if (existing)
      throw new KernelError(KernelErrorCode.AlreadyExists, `Directory already exists: ${uri}`, {
        resource: uri,
        type: 'directory',
      });
    await this.backlog.assertIndexRoom(caller);
    const { index } = await this.nodes.mkdir(caller, uri, description?.trim() || undefined);
    if (index) await this.dispatcher.dispatch(index);
    return { uri };
  }

  /**
   * A move removes its source, so the source passes the rules of deleting it (namespace roots here, a
   * shared directory in the store's move) and every moved file the write rules at its new place
   * (docs/fs-and-mcp.md, "Access rules").
   */
  async mv(caller: Identity, rawFrom: string, rawTo: string) {
    assertDeletable(caller, canonicalizeUri(rawFrom, caller.userId), 'Moving');
    const from = this.content.readableUri(caller, rawFrom);
    const to = this.content.readableUri(caller, rawTo);
    for (const job of await this.fsOps.move(caller, from, to)) await this.dispatcher.dispatch(job);
    return { from, to };
  }

  async remove(caller: Identity, raw: string, recursive: boolean, wait: boolean) {
    const started = Date.now();
    assertDeletable(caller, canonicalizeUri(raw, caller.userId));
    const uri = this.content.readableUri(caller, raw);
    const { deleted, index } = await this.nodes.delete(caller, uri, recursive);
    const entry = index ? await this.dispatcher.dispatch(index) : null;
    const answer = { uri, estimated_deleted_count: deleted.length, semantic_status: entry ? 'queued' : 'skipped' };
    if (!wait || !entry) return answer;
    const then = { route: 'delete' as const, answer, startedAt: started };
    return answerAfterIndex(then, await this.dispatcher.wait([entry], undefined, then));
  }

  /** `viking://user` is listable by every role (filtered); anything else follows the read rules. */
  private listableUri(caller: Identity, raw: string): string {
    const trimmed = trimEndChar(raw.trim(), '/');
    if (trimmed === USER_CONTAINER) return USER_CONTAINER;
    return this.content.readableUri(caller, raw);
  }

  private async requireDirectory(caller: Identity, uri: string): Promise<void> {
    if (uri === 'viking://' || uri === USER_CONTAINER) return;
    const dir = await this.listing.entry(caller, uri);
    // A standing directory not yet written lists as empty (docs/fs-and-mcp.md, "Standing directories").
    if (dir?.kind === 'directory' || (!dir && isStandingDirectory(caller, uri))) return;
    throw new KernelError(KernelErrorCode.NotFound, `Directory not found: ${uri}`, {
      type: 'directory',
      resource: uri,
    });
  }
}

function validTags(tags: string[]): string[] {
  // Invalid tags are discarded rather than refused (the reference's set_tags behaviour).
  const ok = tags.filter((t) => isTagPair(t, true));
  return normalizeSearchTags(ok);
}

function relPath(base: string, uri: string): string {
  return uri.slice(base === 'viking://' ? base.length : base.length + 1);
}

function agentEntry(n: NodeEntry, rel: { rel_path?: string }, absLimit: number) {
  const isDir = n.kind === 'directory';
  return {
    uri: n.uri,
    size: isDir ? 0 : n.size,
    isDir,
    modTime: n.updatedAt,
    ...rel,
    abstract: isDir ? cut(n.abstract, absLimit) : '',
  };
}

function originalEntry(n: NodeEntry, rel: { rel_path?: string }, withMeta: boolean) {
  const isDir = n.kind === 'directory';
  return {
    name: baseName(n.uri),
    size: isDir ? 0 : n.size,
    mode: isDir ? DIR_MODE : FILE_MODE,
    modTime: n.updatedAt,
    isDir,
    ...(withMeta ? { meta: {} } : {}),
    ...rel,
    uri: n.uri,
  };
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, Math.max(0, limit - 3))}...`;
}

function sortEntries(items: NodeEntry[], by: 'name' | 'mtime', order: 'asc' | 'desc'): NodeEntry[] {
  const dir = order === 'asc' ? 1 : -1;
  const key = (n: NodeEntry) => (by === 'name' ? baseName(n.uri) : n.updatedAt);
  return [...items].sort((a, b) => {
    if (a.kind !== b.kind) return a.kind === 'directory' ? -1 : 1;
    return key(a) < key(b) ? -dir : key(a) > key(b) ? dir : 0;
  });
}
