import { setImmediate as nextTurn } from 'node:timers/promises';
import { Embedder } from './embedder.port';
import { hash32 } from './feature-hash';
import { analyze, WeightedTokens } from './text-analyzer';
import { l2Normalize } from './vector-math';

/** Share of the squared norm each feature family gets; cosine is roughly the weighted mean of the families' cosines. */
export interface HashingWeights {
  words: number;
  bigrams: number;
  grams: number;
}

export interface HashingEmbedderOptions {
  dim?: number;
  weights?: Partial<HashingWeights>;
}

export const DEFAULT_HASHING_DIM = 512;
export const DEFAULT_HASHING_WEIGHTS: Readonly<HashingWeights> = { words: 0.45, bigrams: 0.15, grams: 0.4 };
const VERSION = 'v1';
const SEEDS = { words: 0x9e3779b1, bigrams: 0x85ebca77, grams: 0xc2b2ae3d } as const;

/** Texts embedded between two yields to the event loop (each at most ~8,000 characters when indexing). */
const YIELD_EVERY = 16;

/**
 * Offline embedder: signed feature hashing of words, word bigrams and character n-grams (CJK via
 * Intl.Segmenter plus character bigrams), sublinear tf. Deterministic, no model files, ~0 start-up.
 */
export class HashingEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  private readonly weights: HashingWeights;

  constructor(options: HashingEmbedderOptions = {}) {
    this.dim = options.dim ?? DEFAULT_HASHING_DIM;
    if (!Number.isInteger(this.dim) || this.dim < 16)
      throw new RangeError(`HashingEmbedder: dim must be an integer >= 16`);
    this.weights = { ...DEFAULT_HASHING_WEIGHTS, ...options.weights };
    const w = this.weights;
    const custom = (Object.keys(w) as (keyof HashingWeights)[]).some((k) => w[k] !== DEFAULT_HASHING_WEIGHTS[k]);
    this.id = `local-hash:${VERSION}:${this.dim}${custom ? `:w${w.words}-${w.bigrams}-${w.grams}` : ''}`;
  }

  /**
   * Yields to the event loop every {@link YIELD_EVERY} texts: an index job's batch (a commit writes ~100
   * memories) was one block of about half a second on the process's event loop.
   */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const [i, t] of texts.entries()) {
      if (i > 0 && i % YIELD_EVERY === 0) await nextTurn();
      out.push(this.embedOne(t));
    }
    return out;
  }

  /** Synchronous form of `embed` for a single text. */
  embedOne(text: string): Float32Array {
    const a = analyze(text);
    const out = new Float32Array(this.dim);
    const scratch = new Float32Array(this.dim);
    let any = false;
    any = this.addFamily(out, scratch, a.terms, SEEDS.words, this.weights.words) || any;
    any = this.addFamily(out, scratch, a.bigrams, SEEDS.bigrams, this.weights.bigrams) || any;
    any = this.addFamily(out, scratch, a.grams, SEEDS.grams, this.weights.grams) || any;
    // A text with no features still gets a unit vector, so stores never see a zero vector (undefined cosine).
    if (!any) this.addFamily(out, scratch, { tokens: ['\u0000empty'], weights: [1] }, SEEDS.words, 1);
    return l2Normalize(out);
  }

  private addFamily(
    out: Float32Array,
    scratch: Float32Array,
    { tokens, weights }: WeightedTokens,
    seed: number,
    weight: number,
  ): boolean {
    if (tokens.length === 0 || weight <= 0) return false;
    const tf = new Map<string, { n: number; w: number }>();
    for (let i = 0; i < tokens.length; i++) {
      const e = tf.get(tokens[i]);
      const w = weights[i];
      if (e) {
        e.n += 1;
        e.w = Math.max(e.w, w);
      } else tf.set(tokens[i], { n: 1, w });
    }
    scratch.fill(0);
    for (const [token, { n, w }] of tf) {
      const h = hash32(token, seed);
      scratch[h % this.dim] += (h & 0x80000000 ? -1 : 1) * w * (1 + Math.log(n));
    }
    let sum = 0;
    for (let i = 0; i < this.dim; i++) sum += scratch[i] * scratch[i];
    if (sum === 0) return false;
    const scale = Math.sqrt(weight / sum);
    for (let i = 0; i < this.dim; i++) out[i] += scratch[i] * scale;
    return true;
  }
}
