import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { IndexJob } from '@app/contracts';
import {
  assertSubtreeChangeable,
  Identity,
  KernelError,
  KernelErrorCode,
  canonicalizeUri,
  canRead,
  canWrite,
  checkContentWrite,
  checkReindexTarget,
  invalidArgument,
  isTagPair,
  normalizeSearchTags,
  PendingIndexWait,
  stripMemoryFields,
} from '@app/kernel';
import { NodeFsRepository, nodePath, NodeRepository, OutboxRepository } from '@app/store';
import { BatchWriteDto, WriteContentDto } from './dto/write.dto';
import { ReadQueryDto } from './dto/read.dto';
import { ReindexDto } from './dto/reindex.dto';
import { RequestStages } from '../http/request-stages';
import { StageMetricsService } from '../system/stage-metrics.service';
import { BacklogService } from '../http/backlog.service';
import { IndexDispatchService } from './index-dispatch.service';
import { answerAfterIndex, NOT_INDEXED, QUEUED } from './index-answers';

const SIDECAR_LEAF = /\/\.(abstract|overview)\.md$/;

/** Reading and writing file content; every write that changes something is followed by indexing. */
@Injectable()
export class ContentService {
  constructor(
    private readonly nodes: NodeRepository,
    private readonly outbox: OutboxRepository,
    private readonly dispatcher: IndexDispatchService,
    private readonly fsOps: NodeFsRepository,
    private readonly stageMetrics: StageMetricsService,
    private readonly backlog: BacklogService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Canonical URI the caller may read, else INVALID_URI / PERMISSION_DENIED. */
  readableUri(caller: Identity, raw: string): string {
    const uri = canonicalizeUri(raw, caller.userId);
    if (!canRead(caller, uri))
      throw new KernelError(KernelErrorCode.PermissionDenied, `Access denied for ${uri}`, { resource: uri });
    return uri;
  }

  /**
   * Writes one file. The node and its outbox entry commit together, so once this answers the write is
   * durable and will become searchable even if the queue is away (then it is indexed when the queue
   * returns). `wait` waits for the indexing (504 past the timeout). See docs/architecture.md#write-path.
   * `backlogChecked`: the caller already checked the account's index backlog (an upload, before it used
   * its link), so a reading taken a moment later cannot refuse what the link was spent on.
   */
  async write(caller: Identity, dto: WriteContentDto, backlogChecked = false) {
    const uri = canonicalizeUri(dto.uri, caller.userId);
    const mode = dto.mode ?? 'replace';
    checkContentWrite(uri, mode);
    if (!backlogChecked) await this.backlog.assertIndexRoom(caller);
    const sidecar = SIDECAR_LEAF.exec(uri);
    if (sidecar) return this.writeSidecar(caller, uri, sidecar, dto);
    const started = Date.now();
    return this.timed(async (stages) => {
      const item = await stages.time('commit', () =>
        this.nodes.write(caller, { uri, content: dto.content, mode, tags: dto.tags }),
      );
      const answer = {
        uri,
        root_uri: rootUriOf(uri),
        context_type: nodePath(uri).contextType,
        mode,
        written_bytes: Buffer.byteLength(dto.content, 'utf8'),
        content_updated: item.changed,
        ...(item.index ? QUEUED : NOT_INDEXED),
        // vectors_only: the node is re-embedded; its directory's summary is left as it is.
        ...(item.index && dto.processing_mode === 'vectors_only' ? { semantic_status: 'skipped' } : {}),
        created: item.created,
      };
      const then = { route: 'write' as const, answer, startedAt: started };
      return this.indexed(then, item.index, dto.wait ?? false, dto.timeout, stages);
    });
  }

  /**
   * Replace/append of an existing directory's `.abstract.md` / `.overview.md` (create is refused by
   * the write rules). The body is stored as given; no file node is created, nothing is re-embedded.
   */
  private async writeSidecar(caller: Identity, uri: string, m: RegExpExecArray, dto: WriteContentDto) {
    const dir = uri.slice(0, m.index);
    const which = m[1] as 'abstract' | 'overview';
    const outcome = await this.fsOps.writeSidecar(caller, dir, which, dto.content, dto.mode === 'append');
    if (outcome === 'missing')
      throw new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
    return {
      uri,
      root_uri: dir,
      context_type: nodePath(dir).contextType,
      mode: dto.mode ?? 'replace',
      written_bytes: Buffer.byteLength(dto.content, 'utf8'),
      content_updated: outcome === 'updated',
      semantic_status: 'skipped',
      vector_status: 'skipped',
      queue_status: null,
      created: false,
    };
  }

  /** Writes up to the batch limit of files under one directory in one transaction: all of them or none. */
  async batchWrite(caller: Identity, dto: BatchWriteDto) {
    const root = canonicalizeUri(dto.root_uri, caller.userId);
    const ops = dto.operations.map((op) => ({ ...op, uri: canonicalizeUri(op.uri, caller.userId) }));
    validateBatch(root, ops);
    await this.backlog.assertIndexRoom(caller);
    const started = Date.now();
    return this.timed(async (stages) => {
      const out = await stages.time('commit', () =>
        this.nodes.writeMany(
          caller,
          ops.map((op) => ({
            uri: op.uri,
            content: op.content ?? Buffer.from(op.content_base64 ?? '', 'base64').toString('utf8'),
            mode: op.mode ?? 'replace',
          })),
        ),
      );
      const answer = {
        root_uri: root,
        created: out.items.filter((i) => i.created).map((i) => i.uri),
        updated: out.items.filter((i) => i.changed && !i.created).map((i) => i.uri),
        // Content (and tags) equal to what is stored: nothing written, nothing re-indexed.
        unchanged: out.items.filter((i) => !i.changed).map((i) => i.uri),
        ...(out.index ? QUEUED : NOT_INDEXED),
      };
      const then = { route: 'batch-write' as const, answer, startedAt: started };
      return this.indexed(then, out.index, dto.wait ?? true, dto.timeout, stages);
    });
  }

  async read(caller: Identity, q: ReadQueryDto): Promise<string> {
    const uri = this.readableUri(caller, q.uri);
    const node = await this.nodes.get(caller, uri);
    if (!node)
      throw new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
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

  /** The stored bytes of a file (memory trailer included) and its name, for `GET /content/download`. */
  async download(caller: Identity, raw: string): Promise<{ name: string; bytes: Buffer }> {
    const uri = this.readableUri(caller, raw);
    const node = await this.nodes.get(caller, uri);
    if (!node)
      throw new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
    if (node.kind === 'directory') {
      throw new KernelError(KernelErrorCode.InvalidArgument, `Cannot read directory as file: ${uri}`, {
        resource: uri,
        expected: 'file',
        actual: 'directory',
      });
    }
    return { name: uri.slice(uri.lastIndexOf('/') + 1) || 'download', bytes: Buffer.from(node.content, 'utf8') };
  }

  /**
   * Re-indexes a node or subtree with the current embedder (after switching embedders, or to repair):
   * outbox entries of up to 256 nodes, each indexed by one idempotent job.
   */
  async reindex(caller: Identity, dto: ReindexDto) {
    const started = Date.now();
    if (dto.dry_run)
      throw new KernelError(
        KernelErrorCode.InvalidArgument,
        'dry_run is only supported for prune_orphans reindex mode.',
        { field: 'dry_run' },
      );
    const uri = canonicalizeUri(dto.uri, caller.userId);
    checkReindexTarget(caller, uri);
    if (!canWrite(caller, uri))
      throw new KernelError(KernelErrorCode.PermissionDenied, `Access denied for ${uri}`, { resource: uri });
    const tagMode = dto.tag_mode ?? 'replace';
    if (dto.tags && tagMode !== 'replace' && tagMode !== 'append') {
      throw new KernelError(KernelErrorCode.InvalidArgument, `unsupported tag mode: ${tagMode}`, { field: 'tag_mode' });
    }
    const root = await this.nodes.get(caller, uri);
    if (!root)
      throw new KernelError(KernelErrorCode.NotFound, `File not found: ${uri}`, { type: 'file', resource: uri });
    const recursive = root.kind === 'directory' && (dto.recursive ?? true);
    if (recursive) assertSubtreeChangeable(caller, uri, 'Reindexing');
    // The subtree's URIs, not its bodies, and all of them or a refusal: the rest of a subtree past a silent cap
    // was never queued while the answer said `completed`.
    const max = this.config.fs.reindexMaxNodes;
    const subtree = recursive ? await this.nodes.subtree(caller, uri, max) : [];
    if (subtree.length >= max)
      throw new KernelError(
        KernelErrorCode.InvalidArgument,
        `A reindex queues at most ${max} files and directories (MUNINN_REINDEX_MAX_NODES), and ${uri} holds more: ` +
          'reindex its directories one at a time',
        { field: 'uri', limit: 'reindex_nodes', max },
      );
    await this.backlog.assertIndexRoom(caller);
    // Files first, then directories deepest first, so sidecars are rebuilt from fresh child abstracts.
    const nodes = [root, ...subtree].sort((a, b) =>
      a.kind === b.kind ? b.uri.split('/').length - a.uri.split('/').length : a.kind === 'file' ? -1 : 1,
    );
    const jobs = await this.outbox.reindex(
      caller.accountId,
      uri,
      nodes.map((n) => n.uri),
    );
    if (!jobs)
      throw new KernelError(KernelErrorCode.Conflict, `A reindex of ${uri} is already running`, {
        resource: uri,
        conflict_type: 'reindex_running',
        retryable: true,
      });
    // Tags change after the conflict check and before the jobs run, so the rebuilt records carry them.
    if (dto.tags) {
      const tags = normalizeSearchTags(dto.tags.filter((t) => isTagPair(t)));
      await this.fsOps.setTags(caller, uri, tags, tagMode as 'replace' | 'append', dto.recursive ?? true, max);
    }
    const entries = [];
    for (const job of jobs) entries.push(await this.dispatcher.dispatch(job));
    const mode = dto.mode ?? 'vectors_only';
    if (!(dto.wait ?? true))
      return { uri, mode, status: 'accepted', scanned_records: nodes.length, task_id: entries[0]?.jobId ?? null };
    const answer = {
      uri,
      mode,
      status: 'completed',
      object_type: root.kind,
      scanned_records: nodes.length,
    };
    const then = { route: 'reindex' as const, answer, startedAt: started };
    return answerAfterIndex(then, await this.dispatcher.wait(entries, dto.timeout, then));
  }

  /** Directory sidecar body (`.abstract.md` / `.overview.md`); a file URI is FAILED_PRECONDITION. */
  async sidecar(caller: Identity, raw: string, which: 'abstract' | 'overview'): Promise<string> {
    const uri = this.readableUri(caller, raw);
    const node = await this.nodes.get(caller, uri);
    // Sidecars belong to directories; a file is the reference's 412 (docs/fs-and-mcp.md, case 61).
    if (node?.kind === 'file')
      throw new KernelError(KernelErrorCode.FailedPrecondition, `${uri} is not a directory`, {
        resource: uri,
        expected: 'directory',
        actual: 'file',
      });
    if (!node)
      throw new KernelError(KernelErrorCode.NotFound, `Directory not found: ${uri}`, {
        type: 'directory',
        resource: uri,
      });
    const body = which === 'abstract' ? node.abstract : node.overview;
    if (body) return body;
    return which === 'abstract'
      ? `# ${node.uri} [Directory abstract is not ready]`
      : `# ${node.uri}\n\n[Directory overview is not ready]`;
  }

  /**
   * A write's answer after its index job: `vector_status` is the written nodes' own index (embedding and
   * lexical text), `semantic_status` their directory's summary (`deferred`: it will include them within the
   * summary interval). Nothing changed → `skipped`, nothing was re-indexed; not waited for → `queued`.
   */
  private async indexed(
    then: Pick<PendingIndexWait, 'route' | 'answer' | 'startedAt'>,
    job: IndexJob | null,
    wait: boolean,
    timeout: number | undefined,
    stages: RequestStages,
  ) {
    if (!job) return then.answer;
    const entry = await stages.time('enqueue', () => this.dispatcher.dispatch(job));
    if (!wait) return then.answer;
    return answerAfterIndex(then, await stages.job('index', () => this.dispatcher.wait([entry], timeout, then)));
  }

  /**
   * Runs one write under a stage timer and records its stages, also when it fails (a 504 still
   * shows where the time went): docs/architecture.md, "Stage timings".
   */
  private async timed<T>(work: (stages: RequestStages) => Promise<T>): Promise<T> {
    const stages = new RequestStages();
    try {
      return await stages.time('total', () => work(stages));
    } finally {
      this.stageMetrics.observeWrite(stages.summary());
    }
  }
}

type BatchOp = BatchWriteDto['operations'][number];

function sliceLines(text: string, offset: number, limit: number): string {
  if (offset === 0 && limit < 0) return text;
  const lines = text.split(/(?<=\n)/).filter(Boolean);
  return lines.slice(offset, limit < 0 ? undefined : offset + limit).join('');
}

/** The directory a write is reported under: the memory-type directory for memories, else the parent. */
function rootUriOf(uri: string): string {
  const segs = uri.slice('viking://'.length).split('/');
  const mem = segs.indexOf('memories');
  return mem >= 0 && segs.length > mem + 2
    ? `viking://${segs.slice(0, mem + 2).join('/')}`
    : `viking://${segs.slice(0, -1).join('/')}`;
}

/**
 * Every operation passes the rules a single `/content/write` passes (`checkContentWrite`) and the
 * batch's own; the first refusal fails the whole batch, naming the operation (docs/fs-and-mcp.md,
 * "Content writes").
 */
function validateBatch(root: string, ops: BatchOp[]) {
  const seen = new Set<string>();
  ops.forEach((op, i) =>
    atOperation(i, () => {
      if (!op.uri.startsWith(`${root}/`))
        throw invalidArgument(`operation target ${op.uri} is not under root_uri ${root}`, { field: 'uri' });
      if (seen.has(op.uri)) throw invalidArgument(`duplicate operation target: ${op.uri}`, { field: 'uri' });
      seen.add(op.uri);
      if ((op.content === undefined) === (op.content_base64 === undefined)) {
        throw invalidArgument(`exactly one of content or content_base64 is required: ${op.uri}`, {
          field: 'content',
        });
      }
      checkContentWrite(op.uri, op.mode ?? 'replace');
      // A single write keeps a directory's sidecar on the directory; a batch only writes files.
      if (SIDECAR_LEAF.test(op.uri))
        throw invalidArgument(`batch-write does not write directory sidecars; use /content/write: ${op.uri}`, {
          field: 'uri',
        });
    }),
  );
}

/** Runs one operation's checks; a refusal names the operation: `operations[<i>].<field>`. */
function atOperation(i: number, check: () => void): void {
  try {
    check();
  } catch (e) {
    if (!(e instanceof KernelError)) throw e;
    const field = typeof e.details?.field === 'string' ? `.${e.details.field}` : '';
    throw new KernelError(e.code, `operations[${i}]: ${e.message}`, {
      ...e.details,
      field: `operations[${i}]${field}`,
    });
  }
}
