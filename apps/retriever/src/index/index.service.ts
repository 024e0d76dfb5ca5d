import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { IndexJob, IndexResult, SidecarStatus } from '@app/contracts';
import { fileAbstract, searchText, StageTimer } from '@app/kernel';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Embedder } from '@app/embed';
import { CallCircuit, ModelBudget, ModelMetrics } from '@app/queue';
import { FileIndex, IndexInput, NodeIndexRepository } from '@app/store';
import { baseNameWords, embeddingText, INDEX_EMBEDDER, parentDirectory } from './index-text';
import { SidecarService } from './sidecar.service';

/**
 * Makes the nodes of one outbox entry searchable: abstracts, lexical text and embeddings for all its
 * files in steps of {@link INDEX_CHUNK} (one embedder call and one statement each), then the summaries of the
 * directories involved.
 * The entry is deleted last, so a crash at any point leaves it for the relay; every step is idempotent.
 */
@Injectable()
export class IndexService {
  /**
   * Its own circuit, not the query path's: a query embedding's 3 s fuse would open that one for a provider
   * that is only slow, and indexing, which may wait 30 s, would then be kept from storing vectors at all.
   */
  private readonly embedCircuit: CallCircuit;
  private readonly metrics: ModelMetrics;

  constructor(
    private readonly repo: NodeIndexRepository,
    private readonly sidecars: SidecarService,
    @Inject(INDEX_EMBEDDER) private readonly embedder: Embedder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    budget: ModelBudget,
  ) {
    this.metrics = budget.metrics;
    this.embedCircuit = this.metrics.newCircuit('index_embed', 'index embedding', config.llm);
  }

  /** `timer` gets the stages: `read`, `text`, `embed`, `sql`, `sidecar` (and its parts), `outbox`. */
  async index(job: IndexJob, timer = new StageTimer(() => 0)): Promise<IndexResult> {
    let indexed = 0;
    const parents = new Set<string>();
    const ownDirs: string[] = [];
    if (job.op === 'upsert') {
      // In steps of INDEX_CHUNK files: a moved subtree is one outbox entry of up to 10,000 files, and as one read,
      // one embedder call and one UPDATE it ran past the store's statement timeout (5,021 files under load), so
      // the moved files never became searchable. Each step is idempotent (the rev check), so a retry redoes it.
      for (let at = 0; at < job.uris.length; at += INDEX_CHUNK) {
        const chunk = job.uris.slice(at, at + INDEX_CHUNK);
        const nodes = await timer.time('read', () => this.repo.nodesForIndex(job.accountId, chunk));
        indexed += await this.indexFiles(job.accountId, nodes, timer);
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
      const statuses = await this.sidecars.refresh(job.accountId, [...ownDirs, ...parents], new Set(ownDirs), timer);
      for (const dir of parents) directories = merge(directories, statuses.get(dir) ?? 'skipped');
    });
    await timer.time('outbox', () => this.repo.finishOutbox(job.outboxId));
    return { indexed, embedderId: this.embedder.id, directories };
  }

  /** Abstracts, lexical text and embeddings of the files among `nodes`: one embedder call, one statement. */
  private async indexFiles(accountId: string, nodes: IndexInput[], timer: StageTimer): Promise<number> {
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
    const updates = (vectors: Float32Array[] | null): FileIndex[] =>
      files.map((f, i) => ({
        uri: f.uri,
        rev: f.rev,
        abstract: texts[i].abstract,
        searchText: texts[i].search,
        embedding: vectors ? vectors[i] : null,
      }));
    let vectors: Float32Array[] = [];
    try {
      if (files.length) vectors = await timer.time('embed', () => this.embedFiles(files, texts));
    } catch (err) {
      // The embedding provider failed past its own retries (docs/limits-and-security.md, "A model that stops
      // answering"): the files' abstracts and words are stored now, so searches find them lexically while it
      // is away, instead of not at all; the job still fails, and its retries (then the outbox relay, which
      // keeps the entry) add the vectors once the provider answers.
      await timer.time('sql', () => this.repo.storeFileIndexes(accountId, updates(null), null)).catch(() => 0);
      throw err;
    }
    return timer.time('sql', () => this.repo.storeFileIndexes(accountId, updates(vectors), this.embedder.id));
  }

  /**
   * One embedder call under the index circuit: while it is open (that many jobs in a row found the provider
   * failing) the call is not made and the job fails at once, after storing the files' words, instead of
   * spending the embedder's timeout and retries on a provider that is down.
   */
  private async embedFiles(files: IndexInput[], texts: { abstract: string }[]): Promise<Float32Array[]> {
    const run = await this.embedCircuit
      .run(() => this.embedder.embed(files.map((f, i) => embeddingText(f.uri, texts[i].abstract))))
      .catch((err: unknown) => {
        this.metrics.ended('index_embed', 'failed', 0);
        throw err;
      });
    this.metrics.ended('index_embed', run.skipped ? 'open' : 'ok', 0);
    if (run.skipped) throw new EmbeddingUnavailable();
    return run.value;
  }
}

/** An index job's embedding not asked for: the index circuit is open. */
class EmbeddingUnavailable extends Error {
  constructor() {
    super('the embedding provider failed every call of late (index circuit open); stored without vectors');
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
