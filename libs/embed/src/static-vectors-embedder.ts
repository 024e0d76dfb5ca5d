import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Embedder } from './embedder.port';
import { l2Normalize } from './vector-math';

export interface StaticVectorsOptions {
  /** Folder holding vocab.txt (frequency order), vectors.i8 (row-major int8) and scales.f32 (one scale per row). */
  dir: string;
  /** SIF smoothing `a` in a/(a+p(w)); p(w) from Zipf over the frequency rank. */
  sifA?: number;
  /** Remove the table's mean direction, which otherwise makes every pair of sentences look similar. */
  removeMean?: boolean;
}

const WORD = /[a-z]+(?:['’][a-z]+)?|\d+/g;

/** Mean of SIF-weighted static English word vectors (pruned GloVe-style table). */
export class StaticVectorsEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  private readonly index = new Map<string, number>();
  private readonly table: Float32Array;
  private readonly weights: Float32Array;
  private readonly mean: Float32Array | undefined;

  constructor(options: StaticVectorsOptions) {
    const vocab = readFileSync(join(options.dir, 'vocab.txt'), 'utf8').split('\n');
    const q = new Int8Array(readFileSync(join(options.dir, 'vectors.i8')).buffer.slice(0));
    const sBuf = readFileSync(join(options.dir, 'scales.f32'));
    const scales = new Float32Array(sBuf.buffer.slice(sBuf.byteOffset, sBuf.byteOffset + sBuf.byteLength));
    this.dim = q.length / vocab.length;
    this.table = new Float32Array(q.length);
    for (let r = 0; r < vocab.length; r++)
      for (let i = 0; i < this.dim; i++) this.table[r * this.dim + i] = q[r * this.dim + i] * scales[r];
    vocab.forEach((w, r) => this.index.set(w, r));
    const a = options.sifA ?? 1e-3;
    const harmonic = Math.log(341_479) + 0.5772;
    this.weights = new Float32Array(vocab.length);
    for (let r = 0; r < vocab.length; r++) this.weights[r] = a / (a + 1 / ((r + 1) * harmonic));
    if (options.removeMean ?? true) {
      const m = new Float32Array(this.dim);
      for (let r = 0; r < vocab.length; r++) for (let i = 0; i < this.dim; i++) m[i] += this.table[r * this.dim + i];
      this.mean = l2Normalize(m);
    }
    this.id = `local-static:wink100-${vocab.length}:${this.dim}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dim);
    for (const m of text.toLowerCase().matchAll(WORD)) {
      let r = this.index.get(m[0]);
      if (r === undefined && /['’]s$/.test(m[0])) r = this.index.get(m[0].slice(0, -2));
      if (r === undefined) continue;
      const w = this.weights[r];
      for (let i = 0; i < this.dim; i++) v[i] += w * this.table[r * this.dim + i];
    }
    if (this.mean) {
      let d = 0;
      for (let i = 0; i < this.dim; i++) d += v[i] * this.mean[i];
      for (let i = 0; i < this.dim; i++) v[i] -= d * this.mean[i];
    }
    return l2Normalize(v);
  }
}
