import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { FindJob, FindResult } from '@app/contracts';
import { Embedder, EMBEDDER } from '@app/embed';
import { cutHitAbstracts, StageTimer } from '@app/kernel';
import {
  CallCircuit,
  CallTimeout,
  isClientGone,
  ModelBudget,
  ModelMetrics,
  throwIfClientGone,
  unlessClientGone,
  withTimeout,
} from '@app/queue';
import {
  countForeignVectors,
  Db,
  ensureVectorIndex,
  FOREIGN_VECTORS_CAP,
  NodeSearchQuery,
  NodeSearchRepository,
  STORE_DB,
} from '@app/store';
import { toFindResult } from './find-result';
import { queryTerms } from './query-terms';

type QueryVector = NodeSearchQuery['vector'];
/** A query's vector; `lexicalOnly` when it has text but no vector (its embedding failed, was late, or was not asked). */
export interface QueryEmbedding {
  vector: QueryVector;
  lexicalOnly: boolean;
}
const LEXICAL_ONLY: QueryEmbedding = { vector: null, lexicalOnly: true };
/** What one call of {@link FindService.find} may carry besides its job. */
export interface FindRun {
  /** Gets the `embed`, `terms`, `sql` and `score` stages. */
  timer?: StageTimer;
  /** Shared by the calls of one batch: each distinct query (or image) is embedded once. */
  vectors?: Map<string, Promise<QueryEmbedding>>;
  /** The request's deadline (epoch ms): the query's embedding is awaited for two thirds of what is left of it at most. */
  deadlineAt?: number;
  /** The job was withdrawn: its search statement is cancelled in the store. */
  signal?: AbortSignal;
}

/** At most one warning per this long about query embeddings that failed (an outage fails them all). */
const WARN_EVERY_MS = 10_000;

/** Answers `find` jobs: embed the query, search the store inside the resolved targets, shape the result. */
@Injectable()
export class FindService implements OnApplicationBootstrap {
  private readonly logger = new Logger(FindService.name);
  private readonly embedTimeoutMs: number;
  private readonly embedCircuit: CallCircuit;
  private readonly metrics: ModelMetrics;
  private warnedAt = 0;

  constructor(
    private readonly search: NodeSearchRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(STORE_DB) private readonly db: Db,
    @Inject(APP_CONFIG) config: AppConfig,
    budget: ModelBudget,
  ) {
    this.embedTimeoutMs = config.embedding.queryTimeoutMs;
    // Counted with the other model calls (`call="embed"`): an operator sees the outage and the open circuit.
    this.metrics = budget.metrics;
    this.embedCircuit = this.metrics.newCircuit('embed', 'query embedding', config.llm);
  }

  /** Builds the HNSW index for this embedder's dimension in the background; until then search scans. */
  onApplicationBootstrap() {
    const started = Date.now();
    ensureVectorIndex(this.db, this.embedder.dim).then(
      (built) =>
        built && this.logger.log(`built the ${this.embedder.dim}-d vector index in ${Date.now() - started} ms`),
      (err: Error) =>
        this.logger.warn(`vector index for ${this.embedder.dim}-d not built (${err.message}); searching without it`),
    );
    void this.warnForeignVectors();
  }

  /**
   * After an embedder change (provider, model or EMBEDDING_DIM) the stored vectors are not re-embedded
   * by themselves: say so once at start-up, with the count and the route that does it.
   */
  private async warnForeignVectors(): Promise<void> {
    try {
      const n = await countForeignVectors(this.db, this.embedder.id);
      if (n === 0) return;
      const count = n > FOREIGN_VECTORS_CAP ? `more than ${FOREIGN_VECTORS_CAP}` : String(n);
      this.logger.warn(
        `${count} nodes hold vectors of another embedder than ${this.embedder.id}: search finds them by ` +
          `their text only until POST /api/v1/content/reindex re-embeds them`,
      );
    } catch (err) {
      this.logger.warn(`could not count vectors of other embedders (${(err as Error).message})`);
    }
  }

  async find(job: FindJob, run: FindRun = {}): Promise<FindResult> {
    const { timer } = run;
    const embed = () => this.sharedVector(job, run);
    const { vector, lexicalOnly } = timer ? await timer.time('embed', embed) : await embed();
    // A job withdrawn while its query was embedded searches for nobody (docs/limits-and-security.md).
    throwIfClientGone();
    const query = {
      identity: job.identity,
      targets: job.targets,
      filter: job.filter,
      levels: job.levels,
      limit: job.limit,
      scoreThreshold: job.scoreThreshold,
      vector,
      terms: queryTerms(job.query),
    };
    const { hits, corrected } = await this.search.searchCorrecting(query, timer, run.signal);
    const result = toFindResult(hits);
    // A context request's hits carry a bounded total of abstract text (docs/limits-and-security.md, "Work per byte").
    if (job.abstractChars !== undefined)
      cutHitAbstracts([...result.memories, ...result.resources, ...result.skills], job.abstractChars);
    return { ...result, ...(lexicalOnly ? { lexicalOnly } : {}), ...(corrected.length ? { corrected } : {}) };
  }

  private sharedVector(job: FindJob, { vectors, deadlineAt }: FindRun): Promise<QueryEmbedding> {
    if (!vectors) return this.queryVector(job, deadlineAt);
    const key = job.query;
    let v = vectors.get(key);
    if (!v) {
      v = this.queryVector(job, deadlineAt);
      vectors.set(key, v);
    }
    return v;
  }

  /**
   * The query's embedding under its fuse and circuit (docs/limits-and-security.md, "A model that stops
   * answering"): an embedding provider that fails or hangs makes the search lexical, at once while the
   * circuit is open, instead of holding every search (and this worker) for the provider's timeout and
   * retries. The fuse is cut to two thirds of what is left of the job's deadline (a job that waited in the
   * queue, or a fuse configured past the deadline), so the lexical search and the assembly after it still
   * fit; past the fuse the provider's call is aborted too: no retries, no vector computed (and billed) for
   * nobody. A withdrawn job (its gateway no longer waits) aborts the provider's call and stops: it is not
   * the provider's failure, so the circuit does not count it.
   */
  private async queryVector(job: FindJob, deadlineAt?: number): Promise<QueryEmbedding> {
    if (!job.query.trim()) return { vector: null, lexicalOnly: false };
    const left = deadlineAt === undefined ? Infinity : deadlineAt - Date.now();
    const fuseMs = Math.max(1, Math.min(this.embedTimeoutMs, Math.floor((left * 2) / 3)));
    try {
      const run = await this.embedCircuit.run(job.identity.accountId, (cut) => {
        const abort = new AbortController();
        const signal = AbortSignal.any([abort.signal, cut]);
        return unlessClientGone(withTimeout(this.embedder.embed([job.query], { signal }), fuseMs, abort), () =>
          abort.abort(),
        );
      });
      this.metrics.ended('embed', run.skipped || 'ok', 0);
      if (run.skipped) return LEXICAL_ONLY;
      return { vector: { values: run.value[0], embedderId: this.embedder.id }, lexicalOnly: false };
    } catch (err) {
      if (isClientGone(err)) throw err;
      this.metrics.ended('embed', err instanceof CallTimeout ? 'timeout' : 'failed', 0);
      if (Date.now() - this.warnedAt > WARN_EVERY_MS) {
        this.warnedAt = Date.now();
        this.logger.warn(`query embedding failed, searching lexically: ${(err as Error).message}`);
      }
      return LEXICAL_ONLY;
    }
  }
}
