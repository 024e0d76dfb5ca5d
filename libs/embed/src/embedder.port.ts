/** Turns text into L2-normalised vectors of a fixed dimension. */
export interface Embedder {
  /** Model, version and dimension, e.g. `local-hash:v1:512`; stored on nodes so a change triggers re-indexing. */
  readonly id: string;
  readonly dim: number;
  /** One vector per input text, in input order, each of length `dim` and unit L2 norm. */
  embed(texts: string[]): Promise<Float32Array[]>;
}
