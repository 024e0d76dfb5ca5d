import { EmbedError, EmbedErrorCode } from './embed.error';
import { setTimeout as sleep } from 'node:timers/promises';
import { trimEndChar } from '@app/kernel';
import { EmbedCallOptions, Embedder } from './embedder.port';
import { l2Normalize } from './vector-math';

export interface OpenAIEmbedderOptions {
  /** API root such as `https://api.openai.com/v1`; `/embeddings` is appended. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Sent as `dimensions` when set; otherwise the model's known native size is assumed. */
  dim?: number;
  timeoutMs?: number;
  maxRetries?: number;
  batchSize?: number;
  /** First retry delay; doubles each attempt (with jitter), capped at 8 s. */
  backoffMs?: number;
}

const NATIVE_DIMS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

/** OpenAI-compatible `/embeddings` client on global fetch: batching, per-request timeout, retries on 429/5xx/network. */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly batchSize: number;
  private readonly backoffMs: number;

  constructor(private readonly options: OpenAIEmbedderOptions) {
    if (!options.baseUrl)
      throw new EmbedError(EmbedErrorCode.InvalidConfig, 'openai embedder: baseUrl is required', false);
    if (!options.model) throw new EmbedError(EmbedErrorCode.InvalidConfig, 'openai embedder: model is required', false);
    const dim = options.dim ?? NATIVE_DIMS[options.model];
    if (!dim || !Number.isInteger(dim) || dim < 1) {
      throw new EmbedError(
        EmbedErrorCode.InvalidConfig,
        `openai embedder: dim is required for model ${options.model}`,
        false,
      );
    }
    this.dim = dim;
    this.url = `${trimEndChar(options.baseUrl, '/')}/embeddings`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 3;
    this.batchSize = Math.max(1, options.batchSize ?? 96);
    this.backoffMs = options.backoffMs ?? 250;
    this.id = `openai:${options.model}:${dim}`;
  }

  async embed(texts: string[], options?: EmbedCallOptions): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...(await this.embedBatch(texts.slice(i, i + this.batchSize), options?.signal)));
    }
    return out;
  }

  private async embedBatch(texts: string[], caller?: AbortSignal): Promise<Float32Array[]> {
    // The API rejects empty strings; a space embeds as "nothing" without failing the whole batch.
    const body = JSON.stringify({
      model: this.options.model,
      input: texts.map((t) => (t.trim() === '' ? ' ' : t)),
      encoding_format: 'float',
      ...(this.options.dim !== undefined ? { dimensions: this.options.dim } : {}),
    });
    for (let attempt = 0; ; attempt++) {
      this.throwIfAbandoned(caller);
      let failure: EmbedError;
      let retryAfterMs: number | undefined;
      try {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
          },
          body,
          signal: caller
            ? AbortSignal.any([caller, AbortSignal.timeout(this.timeoutMs)])
            : AbortSignal.timeout(this.timeoutMs),
        });
        if (res.ok) return this.parse((await res.json()) as EmbeddingsResponse, texts.length);
        const detail = (await res.text().catch(() => '')).slice(0, 300);
        const transient = res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500;
        failure = new EmbedError(
          transient ? EmbedErrorCode.Unavailable : EmbedErrorCode.Rejected,
          `embeddings ${this.url} answered ${res.status}: ${detail}`,
          transient,
          res.status,
        );
        const ra = Number(res.headers.get('retry-after'));
        if (Number.isFinite(ra) && ra > 0) retryAfterMs = Math.min(ra * 1000, 30_000);
      } catch (err: unknown) {
        if (err instanceof EmbedError) throw err;
        this.throwIfAbandoned(caller);
        // AbortSignal.timeout rejects with a DOMException, which is not an Error subclass in every realm.
        const timedOut = (err as { name?: unknown } | undefined)?.name === 'TimeoutError';
        const reason = timedOut ? `timed out after ${this.timeoutMs} ms` : `failed: ${String(err)}`;
        failure = new EmbedError(EmbedErrorCode.Unavailable, `embeddings ${this.url} ${reason}`, true, undefined, {
          cause: err,
        });
      }
      if (!failure.retryable || attempt >= this.maxRetries) {
        if (failure.retryable) failure.message += ` (after ${attempt + 1} attempts)`;
        throw failure;
      }
      const backoff = Math.min(this.backoffMs * 2 ** attempt, 8_000) * (0.75 + Math.random() * 0.5);
      await sleep(retryAfterMs ?? backoff, undefined, { signal: caller }).catch(() => this.throwIfAbandoned(caller));
    }
  }

  /** The caller gave up (its fuse fired): no further attempt, and the reason is not the provider's. */
  private throwIfAbandoned(caller: AbortSignal | undefined): void {
    if (caller?.aborted) {
      throw new EmbedError(
        EmbedErrorCode.Abandoned,
        `embeddings ${this.url}: abandoned by its caller`,
        false,
        undefined,
        {
          cause: caller.reason,
        },
      );
    }
  }

  private parse(json: EmbeddingsResponse, expected: number): Float32Array[] {
    const data = Array.isArray(json.data) ? json.data : [];
    if (data.length !== expected) {
      throw new EmbedError(
        EmbedErrorCode.BadResponse,
        `embeddings: expected ${expected} vectors, got ${data.length}`,
        false,
      );
    }
    const sorted = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return sorted.map((d, i) => {
      const e = d.embedding;
      if (!Array.isArray(e) || e.length !== this.dim || !e.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbedError(
          EmbedErrorCode.BadResponse,
          `embeddings: vector ${i} is not ${this.dim} finite numbers`,
          false,
        );
      }
      return l2Normalize(Float32Array.from(e as number[]));
    });
  }
}
