import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { IndexJob, IndexResult, SidecarStatus } from '@app/contracts';
import { fileAbstract, searchText, StageTimer } from '@app/kernel';
import { APP_CONFIG, AppConfig } from '@app/config';
import { FileIndex, IndexInput, NodeIndexRepository } from '@app/store';
import { IndexEmbedding } from './index-embedding';
import { baseNameWords, embeddingText, parentDirectory } from './index-text';
import { SidecarService } from './sidecar.service';

/**
 * Makes the nodes of one outbox entry searchable: abstracts, lexical text and embeddings for all its
 * files in steps of {@link INDEX_CHUNK} (one embedder call and one statement each), then the summaries of the
 * directories involved.
 * The entry is deleted last, so a crash at any point leaves it for the relay; every step is idempotent.
 */
@Injectable()
export class IndexService {
  constructor(
    private readonly repo: NodeIndexRepository,
    private readonly sidecars: SidecarService,
    private readonly embedding: IndexEmbedding,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `timer` gets the stages: `read`, `text`, `embed`, `sql`, `sidecar` (and its parts), `outbox`. */
  async index(job: IndexJob, timer = new StageTimer(() => 0)): Promise<IndexResult> {
    let indexed = 0;
    const parents = new Set<string>();
    const ownDirs: string[] = [];
    // The embedding provider failed past its own retries (docs/limits-and-security.md, "Writes while it is
    // away"): the job stores every step's words, and its directories' summaries, without vectors, and fails
    // at its end; its retries (then the outbox relay, which keeps the entry) add the vectors.
    let embedFailure: unknown = null;
    // While the account's rows are being removed nothing could be stored: put back before any embedding.
    await timer.time('read', () => this.repo.assertTenantFree(job.accountId));
    if (job.op === 'upsert') {
      // In steps of INDEX_CHUNK files: a moved subtree is one outbox entry of up to 10,000 files, and as one read,
      // one embedder call and one UPDATE it ran past the store's statement timeout (5,021 files under load), so
      // the moved files never became searchable. Each step is idempotent (the rev check), so a retry redoes it.
      for (let at = 0; at < job.uris.length; at += INDEX_CHUNK) {
        const chunk = job.uris.slice(at, at + INDEX_CHUNK);
        const nodes = await timer.time('read', () => this.repo.nodesForIndex(job.accountId, chunk));
        const step = await this.indexFiles(job.accountId, nodes, timer, embedFailure === null);
        indexed += step.indexed;
        embedFailure ??= step.embedFailure;
        for (const n of nodes) if (n.kind === 'file') addParent(parents, n.uri);
        for (const d of nodes) if (d.kind === 'directory') ownDirs.push(d.uri);
      }
    } else {
      for (const uri of job.uris) addParent(parents, uri);
    }
    // Deepest first, so each summary is built from its children's fresh ones; a directory the job
    // created is refreshed now, one that only gained or lost children may be coalesced (deferred).
    let directories: SidecarStatus = 'skipped';
    await timer.time('sidecar', async () => {
      const dirs = [...ownDirs, ...parents];
      const statuses = await this.sidecars.refresh(job.accountId, dirs, new Set(ownDirs), timer, embedFailure === null);
      for (const dir of parents) directories = merge(directories, statuses.get(dir) ?? 'skipped');
    });
    if (embedFailure !== null) throw embedFailure;
    await timer.time('outbox', () => this.repo.finishOutbox(job));
    return { indexed, embedderId: this.embedding.id, directories };
  }

  /**
   * Abstracts, lexical text and embeddings of the files among `nodes`: one embedder call, one statement.
   * Without `embed`, or when the embedding fails, the files are stored without vectors (searchable by their
   * words at once) and the failure is returned for the job to throw at its end.
   */
  private async indexFiles(
    accountId: string,
    nodes: IndexInput[],
    timer: StageTimer,
    embed: boolean,
  ): Promise<{ indexed: number; embedFailure: unknown }> {
    const files = nodes.filter((n) => n.kind === 'file');
    // A yield between files: a commit's ~100 memories took ~560 ms of text analysis in one block
    // (docs/sessions.md, "Offline extractor").
    const texts = await timer.time('text', async () => {
      const out: { abstract: string; search: string }[] = [];
      for (const f of files) {
        if (out.length > 0) await nextTurn();
        const abstract = fileAbstract(f.uri, f.content, this.config.indexing.memoryAbstractMaxChars);
        out.push({ abstract, search: searchText(baseNameWords(f.uri), abstract, f.content.slice(0, 20000)) });
      }
      return out;
    });
    let vectors: Float32Array[] | null = embed ? [] : null;
    let embedFailure: unknown = null;
    if (files.length && embed) {
      const inputs = files.map((f, i) => embeddingText(f.uri, texts[i].abstract));
      vectors = await timer
        .time('embed', () => this.embedding.embed(accountId, inputs))
        .catch((err: unknown) => {
          embedFailure = err;
          return null;
        });
    }
    const updates: FileIndex[] = files.map((f, i) => ({
      uri: f.uri,
      rev: f.rev,
      abstract: texts[i].abstract,
      searchText: texts[i].search,
      embedding: vectors ? vectors[i] : null,
    }));
    const embedderId = vectors ? this.embedding.id : null;
    const stored = timer.time('sql', () => this.repo.storeFileIndexes(accountId, updates, embedderId));
    // Without vectors the job fails at its end anyway (an embedding failed, in this step or an earlier one):
    // the lexical write is a best effort, and its own failure does not hide the embedding's.
    const indexed = vectors ? await stored : await stored.catch(() => 0);
    return { indexed, embedFailure };
  }
}

/** Files per step of an index job (read, embed, store): the most one batch-write holds. */
export const INDEX_CHUNK = 256;

function addParent(into: Set<string>, uri: string): void {
  const p = parentDirectory(uri);
  if (p) into.add(p);
}

function merge(a: SidecarStatus, b: SidecarStatus): SidecarStatus {
  if (a === 'deferred' || b === 'deferred') return 'deferred';
  return a === 'complete' || b === 'complete' ? 'complete' : 'skipped';
}
