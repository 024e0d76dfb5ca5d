import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Embedder } from '@app/embed';
import { CallCircuit, ModelBudget, ModelMetrics } from '@app/queue';
import { INDEX_EMBEDDER } from './index-text';

/** An index embedding not asked for: the index circuit is open. */
export class EmbeddingUnavailable extends Error {
  constructor() {
    super('the embedding provider failed every call of late (index circuit open); stored without vectors');
  }
}

/**
 * The indexer's embeddings, files' and directory summaries' alike, under one circuit: while it is open (that
 * many calls in a row found the provider failing) no call is made and {@link EmbeddingUnavailable} is thrown
 * at once, so a job stores its words without vectors instead of spending the embedder's timeout and retries
 * on a provider that is down (docs/limits-and-security.md, "Writes while it is away"). Counted as
 * `muninn_model_calls_total{call="index_embed"}`.
 *
 * Its own circuit, not the query path's: a query embedding's 3 s fuse would open that one for a provider
 * that is only slow, and indexing, which may wait 30 s, would then be kept from storing vectors at all.
 */
@Injectable()
export class IndexEmbedding {
  private readonly circuit: CallCircuit;
  private readonly metrics: ModelMetrics;

  constructor(
    @Inject(INDEX_EMBEDDER) private readonly embedder: Embedder,
    @Inject(APP_CONFIG) config: AppConfig,
    budget: ModelBudget,
  ) {
    this.metrics = budget.metrics;
    this.circuit = this.metrics.newCircuit('index_embed', 'index embedding', config.llm);
  }

  /** The embedder's id, stored beside each vector. */
  get id(): string {
    return this.embedder.id;
  }

  /** One vector per text of `account`'s, or the provider's failure (or {@link EmbeddingUnavailable}) thrown. */
  async embed(account: string, texts: string[]): Promise<Float32Array[]> {
    const run = await this.circuit
      .run(account, (cut) => this.embedder.embed(texts, { signal: cut }))
      .catch((err: unknown) => {
        this.metrics.ended('index_embed', 'failed', 0);
        throw err;
      });
    this.metrics.ended('index_embed', run.skipped || 'ok', 0);
    if (run.skipped) throw new EmbeddingUnavailable();
    return run.value;
  }
}
