import { EmbedCallOptions, Embedder } from './embedder.port';
import { l2Normalize } from './vector-math';

/**
 * Concatenates unit vectors scaled by sqrt(weight), so cosine = Σ weight·cosine_part / Σ weight when every part
 * has features; re-normalised so a part with none (static English vectors on Chinese text) leaves a unit vector.
 */
export class ConcatEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;

  constructor(private readonly parts: ReadonlyArray<{ embedder: Embedder; weight: number }>) {
    this.dim = parts.reduce((s, p) => s + p.embedder.dim, 0);
    this.id = `concat(${parts.map((p) => `${p.embedder.id}*${p.weight}`).join('+')})`;
  }

  async embed(texts: string[], options?: EmbedCallOptions): Promise<Float32Array[]> {
    const total = this.parts.reduce((s, p) => s + p.weight, 0);
    const outs = texts.map(() => new Float32Array(this.dim));
    let offset = 0;
    for (const { embedder, weight } of this.parts) {
      const vs = await embedder.embed(texts, options);
      const k = Math.sqrt(weight / total);
      vs.forEach((v, t) => v.forEach((x, i) => (outs[t][offset + i] = x * k)));
      offset += embedder.dim;
    }
    return outs.map((v) => l2Normalize(v));
  }
}
