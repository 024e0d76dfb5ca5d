import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { FindJob, FindResult } from '@app/contracts';
import { Embedder, EMBEDDER } from '@app/embed';
import { StageTimer } from '@app/kernel';
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

/** Answers `find` jobs: embed the query, search the store inside the resolved targets, shape the result. */
@Injectable()
export class FindService implements OnApplicationBootstrap {
  private readonly logger = new Logger(FindService.name);

  constructor(
    private readonly search: NodeSearchRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(STORE_DB) private readonly db: Db,
  ) {}

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

  /**
   * `timer`, when given, gets the `embed`, `terms`, `sql` and `score` stages; `vectors`, shared by the
   * calls of one batch, embeds each distinct query (or image) once.
   */
  async find(job: FindJob, timer?: StageTimer, vectors?: Map<string, Promise<QueryVector>>): Promise<FindResult> {
    const embed = () => this.sharedVector(job, vectors);
    const vector = timer ? await timer.time('embed', embed) : await embed();
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
    return toFindResult(await this.search.search(query, timer));
  }

  private sharedVector(job: FindJob, vectors?: Map<string, Promise<QueryVector>>): Promise<QueryVector> {
    if (!vectors) return this.queryVector(job);
    const key = job.query;
    let v = vectors.get(key);
    if (!v) {
      v = this.queryVector(job);
      vectors.set(key, v);
    }
    return v;
  }

  private async queryVector(job: FindJob): Promise<QueryVector> {
    if (!job.query.trim()) return null;
    const [values] = await this.embedder.embed([job.query]);
    return { values, embedderId: this.embedder.id };
  }
}
