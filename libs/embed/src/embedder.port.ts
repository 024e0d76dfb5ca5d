/** What a caller may add to one `embed` call. */
export interface EmbedCallOptions {
  /**
   * Abandons the call: an HTTP embedder closes its request and makes no further attempt, and the call
   * rejects. A search past its fuse aborts its query's embedding so a slow provider is not kept busy
   * (and billed) for a vector nobody waits for (docs/limits-and-security.md, "A model that stops answering").
   */
  signal?: AbortSignal;
}

/** Turns text into L2-normalised vectors of a fixed dimension. */
export interface Embedder {
  /** Model, version and dimension, e.g. `local-hash:v1:512`; stored on nodes so a change triggers re-indexing. */
  readonly id: string;
  readonly dim: number;
  /** One vector per input text, in input order, each of length `dim` and unit L2 norm. */
  embed(texts: string[], options?: EmbedCallOptions): Promise<Float32Array[]>;
}
