import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { IndexResult, QueueName } from '@app/contracts';
import { Identity, KernelError, KernelErrorCode, canonicalizeUri, canRead, canWrite, stripMemoryFields } from '@app/kernel';
import { indexJobId, JobBus } from '@app/queue';
import { ancestors, nodePath, NodeRepository } from '@app/store';
import { BatchWriteDto, WriteContentDto } from './dto/write.dto';
import { ReadQueryDto } from './dto/read.dto';
import { ReindexDto } from './dto/reindex.dto';

type Status = 'queued' | 'complete' | 'failed';

/** Reading and writing file content; every write is followed by an `index` job for the retriever. */
@Injectable()
export class ContentService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly nodes: NodeRepository,
    private readonly bus: JobBus,
  ) {}

  /** Canonical URI the caller may read, else INVALID_URI / PERMISSION_DENIED. */
  readableUri(caller: Identity, raw: string): string {
    const uri = canonicalizeUri(raw, caller.userId);
    if (!canRead(caller, uri)) throw new KernelError(KernelErrorCode.PermissionDenied, `Access denied: ${uri}`, { resource: uri });
    return uri;
  }

  async write(caller: Identity, dto: WriteContentDto) {
    const uri = canonicalizeUri(dto.uri, caller.userId);
    const mode = dto.mode ?? 'replace';
    const outcome = await this.nodes.write(caller, { uri, content: dto.content, mode, tags: dto.tags });
    const jobId = await this.enqueueIndex(caller.accountId, uri);
    const statuses = dto.wait ? await this.waitIndexed([jobId], dto.timeout) : null;
    return {
      uri,
      root_uri: rootUriOf(uri),
      context_type: nodePath(uri).contextType,
      mode,
      written_bytes: Buffer.byteLength(dto.content, 'utf8'),
      content_updated: true,
      semantic_status: statuses?.status ?? 'queued',
      vector_status: statuses?.status ?? 'queued',
      queue_status: statuses?.queue ?? null,
      created: outcome.created,
    };
  }

  async batchWrite(caller: Identity, dto: BatchWriteDto) {
    const root = canonicalizeUri(dto.root_uri, caller.userId);
    const ops = dto.operations.map((op) => ({ ...op, uri: canonicalizeUri(op.uri, caller.userId) }));
    validateBatch(root, ops);
    const created: string[] = [];
    const updated: string[] = [];
    const jobs: string[] = [];
    for (const op of ops) {
      const content = op.content ?? Buffer.from(op.content_base64 ?? '', 'base64').toString('utf8');
      const mode = op.mode === 'upsert' ? ((await this.nodes.get(caller, op.uri)) ? 'replace' : 'create') : (op.mode ?? 'replace');
      const r = await this.nodes.write(caller, { uri: op.uri, content, mode });
      (r.created ? created : updated).push(op.uri);
      jobs.push(await this.enqueueIndex(caller.accountId, op.uri));
    }
    const statuses = (dto.wait ?? true) ? await this.waitIndexed(jobs, dto.timeout) : null;
    return {
      root_uri: root,
      created,
      updated,
      unchanged: [] as string[],
      semantic_status: statuses?.status ?? 'queued',
      vector_status: statuses?.status ?? 'queued',
      queue_status: statuses?.queue ?? null,
    };
  }

  async read(caller: Identity, q: ReadQueryDto): Promise<string> {
    const uri = this.readableUri(caller, q.uri);
    const node = await this.nodes.get(caller, uri);
    if (!node) throw new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
    if (node.kind === 'directory') {
      throw new KernelError(
        KernelErrorCode.InvalidArgument,
        `Directory URI is not readable as a file: ${uri}. List it first, then read a file URI.`,
        { resource: uri, expected: 'file', actual: 'directory' },
      );
    }
    const body = !q.raw && node.contextType === 'memory' ? stripMemoryFields(node.content) : node.content;
    return sliceLines(body, q.offset ?? 0, q.limit ?? -1);
  }

  /**
   * Re-indexes a node or subtree with the current embedder (after switching embedders, or to repair):
   * one index job per visible node, each idempotent.
   */
  async reindex(caller: Identity, dto: ReindexDto) {
    const started = Date.now();
    const uri = canonicalizeUri(dto.uri, caller.userId);
    if (!canWrite(caller, uri)) throw new KernelError(KernelErrorCode.PermissionDenied, `Access denied: ${uri}`, { resource: uri });
    const root = await this.nodes.get(caller, uri);
    if (!root) throw new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
    const subtree = root.kind === 'directory' && (dto.recursive ?? true) ? await this.nodes.list(caller, uri, { recursive: true, limit: 100000 }) : [];
    // Files first, then directories deepest first, so sidecars are rebuilt from fresh child abstracts.
    const nodes = [root, ...subtree].sort((a, b) => (a.kind === b.kind ? b.uri.split('/').length - a.uri.split('/').length : a.kind === 'file' ? -1 : 1));
    const jobs: string[] = [];
    for (const n of nodes) jobs.push(await this.enqueueIndex(caller.accountId, n.uri));
    const mode = dto.mode ?? 'vectors_only';
    if (!(dto.wait ?? true)) return { uri, mode, status: 'accepted', scanned_records: nodes.length, task_id: jobs[0] ?? null };
    const { failed } = await this.waitIndexed(jobs, dto.timeout);
    return {
      uri,
      mode,
      status: 'completed',
      object_type: root.kind,
      scanned_records: nodes.length,
      rebuilt_records: nodes.length - failed,
      failed_records: failed,
      duration_ms: Date.now() - started,
      warnings: [] as string[],
    };
  }

  /** Directory sidecar body (`.abstract.md` / `.overview.md`); a file URI means its directory. */
  async sidecar(caller: Identity, raw: string, which: 'abstract' | 'overview'): Promise<string> {
    const uri = this.readableUri(caller, raw);
    let node = await this.nodes.get(caller, uri);
    if (node?.kind === 'file' && node.parentUri) node = await this.nodes.get(caller, node.parentUri);
    if (!node) throw new KernelError(KernelErrorCode.NotFound, `Directory not found: ${uri}`, { type: 'directory', resource: uri });
    const body = which === 'abstract' ? node.abstract : node.overview;
    if (body) return body;
    return which === 'abstract' ? `# ${node.uri} [Directory abstract is not ready]` : `# ${node.uri}\n\n[Directory overview is not ready]`;
  }

  /** Enqueues indexing of a node (and the refresh of its parents' sidecars); returns the job id. */
  async enqueueIndex(accountId: string, uri: string, op: 'upsert' | 'delete' = 'upsert'): Promise<string> {
    const jobId = indexJobId(accountId, uri, `${op}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
    await this.bus.enqueue(QueueName.Index, { accountId, uri, op, parents: ancestors(uri) }, { jobId });
    return jobId;
  }

  /** Waits for index jobs; DEADLINE_EXCEEDED (504) when they do not finish in time. */
  async waitIndexed(jobIds: string[], timeoutS?: number): Promise<{ status: Status; failed: number; queue: Record<string, unknown> }> {
    const timeoutMs = timeoutS ? Math.round(timeoutS * 1000) : this.config.queues.writeWaitMs;
    const results = await Promise.allSettled(jobIds.map((id) => this.bus.waitFor(QueueName.Index, id, timeoutMs)));
    const timedOut = results.find((r) => r.status === 'rejected' && r.reason instanceof KernelError && r.reason.code === KernelErrorCode.DeadlineExceeded);
    if (timedOut) throw (timedOut as PromiseRejectedResult).reason;
    const errors = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason?.message ?? r));
    const ok = results.filter((r): r is PromiseFulfilledResult<IndexResult> => r.status === 'fulfilled');
    return {
      status: errors.length ? 'failed' : 'complete',
      failed: errors.length,
      queue: {
        Semantic: { processed: ok.length, error_count: errors.length, errors },
        Embedding: { processed: ok.filter((r) => r.value.indexed).length, error_count: errors.length, errors },
      },
    };
  }
}

function sliceLines(text: string, offset: number, limit: number): string {
  if (offset === 0 && limit < 0) return text;
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines.slice(offset, limit < 0 ? undefined : offset + limit).join('');
}

/** The directory a write is reported under: the memory-type directory for memories, else the parent. */
function rootUriOf(uri: string): string {
  const segs = uri.slice('viking://'.length).split('/');
  const mem = segs.indexOf('memories');
  return mem >= 0 && segs.length > mem + 2 ? `viking://${segs.slice(0, mem + 2).join('/')}` : `viking://${segs.slice(0, -1).join('/')}`;
}

function validateBatch(root: string, ops: { uri: string; content?: string; content_base64?: string }[]) {
  const seen = new Set<string>();
  for (const op of ops) {
    if (!op.uri.startsWith(`${root}/`)) throw new KernelError(KernelErrorCode.InvalidArgument, `operation target ${op.uri} is not under root_uri ${root}`);
    if (seen.has(op.uri)) throw new KernelError(KernelErrorCode.InvalidArgument, `duplicate operation target: ${op.uri}`);
    seen.add(op.uri);
    if ((op.content === undefined) === (op.content_base64 === undefined)) {
      throw new KernelError(KernelErrorCode.InvalidArgument, `exactly one of content or content_base64 is required: ${op.uri}`);
    }
  }
}

