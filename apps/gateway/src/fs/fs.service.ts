import { Injectable } from '@nestjs/common';
import { baseName, Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { NodeEntry, NodeListRepository, NodeRepository } from '@app/store';
import { ContentService } from '../content/content.service';
import { IndexDispatchService } from '../content/index-dispatch.service';
import { LsQueryDto } from './dto/fs.dto';

/** Directory listing, stat, mkdir and delete over the `viking://` tree. Listings never load bodies. */
@Injectable()
export class FsService {
  constructor(
    private readonly nodes: NodeRepository,
    private readonly content: ContentService,
    private readonly dispatcher: IndexDispatchService,
    private readonly listing: NodeListRepository,
  ) {}

  async ls(caller: Identity, q: LsQueryDto) {
    const uri = this.content.readableUri(caller, q.uri);
    if (uri !== 'viking://') {
      const dir = await this.listing.entry(caller, uri);
      if (!dir || dir.kind !== 'directory') {
        throw new KernelError(KernelErrorCode.NotFound, `Directory not found: ${uri}`, { type: 'directory', resource: uri });
      }
    }
    const limit = q.limit ?? q.node_limit ?? 1000;
    let items = await this.listing.entries(caller, uri, { recursive: q.recursive, limit });
    if (!q.show_all_hidden) items = items.filter((n) => !baseName(n.uri).startsWith('.'));
    if (q.sort_by) items = sortEntries(items, q.sort_by, q.sort_order ?? 'asc');
    if (q.simple) return items.map((n) => n.uri);
    const absLimit = q.abs_limit ?? 256;
    return items.map((n) => ({
      uri: n.uri,
      size: n.kind === 'directory' ? 0 : n.size,
      isDir: n.kind === 'directory',
      modTime: n.updatedAt,
      ...(q.recursive ? { rel_path: n.uri.slice(uri === 'viking://' ? uri.length : uri.length + 1) } : {}),
      abstract: n.kind === 'directory' ? cut(n.abstract, absLimit) : '',
    }));
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
      mode: isDir ? 0o40755 : 0o644,
      modTime: n.updatedAt,
      isDir,
      isLocked: false,
      ...(isDir ? { count: await this.listing.countUnder(caller, uri) } : {}),
    };
  }

  async mkdir(caller: Identity, raw: string, description?: string) {
    const uri = this.content.readableUri(caller, raw);
    const existing = await this.nodes.get(caller, uri);
    if (existing) throw new KernelError(KernelErrorCode.AlreadyExists, `Directory already exists: ${uri}`, { resource: uri, type: 'directory' });
    const { index } = await this.nodes.mkdir(caller, uri);
    if (description?.trim()) await this.nodes.setDescription(caller, uri, description.trim());
    if (index) await this.dispatcher.dispatch(index);
    return { uri };
  }

  async remove(caller: Identity, raw: string, recursive: boolean, wait: boolean) {
    const uri = this.content.readableUri(caller, raw);
    const { deleted, index } = await this.nodes.delete(caller, uri, recursive);
    const entry = index ? await this.dispatcher.dispatch(index) : null;
    const outcome = wait && entry ? await this.dispatcher.wait([entry]) : null;
    const errors = outcome?.errors.map((message) => ({ message })) ?? [];
    return {
      uri,
      estimated_deleted_count: deleted.length,
      semantic_status: outcome ? (outcome.status === 'failed' ? 'failed' : outcome.directories === 'deferred' ? 'deferred' : 'complete') : entry ? 'queued' : 'skipped',
      ...(outcome ? { queue_status: { Semantic: { processed: outcome.status === 'complete' ? 1 : 0, requeue_count: 0, error_count: errors.length, errors } } } : {}),
    };
  }
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
