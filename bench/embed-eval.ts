/**
 * Retrieval benchmark for the embedders in libs/embed (evaluation only; the LoCoMo data is CC BY-NC and never shipped).
 * Each candidate runs in its own child process so load time and RSS are its own.
 *   node <out>/bench/embed-eval.js [--locomo FILE] [--zh FILE] [--table DIR] [--only a,b] [--json FILE]
 */
import { fork } from 'node:child_process';
import { Corpus, loadLocomo as loadLocomoFile, loadZh as loadZhFile, Query } from './eval-corpora';
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConcatEmbedder } from '../libs/embed/src/concat-embedder';
import { Embedder } from '../libs/embed/src/embedder.port';
import { HashingEmbedder } from '../libs/embed/src/hashing-embedder';
import { StaticVectorsEmbedder } from '../libs/embed/src/static-vectors-embedder';
import { analyze, STOPWORD_WEIGHT } from '../libs/embed/src/text-analyzer';

interface Stats {
  n: number;
  r1: number;
  r5: number;
  r10: number;
  r20: number;
  mrr: number;
}
interface Result {
  name: string;
  loadMs: number;
  rssMb: number;
  textsPerSec: number;
  locomo: Record<string, Stats>;
  zh: Stats;
  hybridLocomo?: Record<string, Stats>;
  hybridZh?: Stats;
  cosGold: number;
  cosUnrelated: number;
  cosUnrelatedP90: number;
  zhCosGold: number;
  zhCosOther: number;
}

const repo = process.cwd(); // npm scripts run from the repository root
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1] ?? '');
const locomoPath = args.get('locomo') ?? resolve(repo, '..', 'shared', 'datasets', 'locomo', 'locomo-dev.json');
const zhPath = args.get('zh') ?? resolve(repo, 'bench', 'data', 'zh-check.json');
const tableDir = args.get('table') ?? resolve(repo, 'libs', 'embed', 'assets', 'wink100');

type Factory = () => Embedder | 'bm25';
const hash = (dim: number, w?: [number, number, number]) => () =>
  new HashingEmbedder({ dim, weights: w && { words: w[0], bigrams: w[1], grams: w[2] } });
const stat =
  (removeMean = true) =>
  () =>
    new StaticVectorsEmbedder({ dir: tableDir, removeMean });
const CANDIDATES: Record<string, Factory> = {
  bm25: () => 'bm25',
  'hash-256': hash(256),
  'hash-512': hash(512),
  'hash-1024': hash(1024),
  'hash-512-words': hash(512, [1, 0, 0]),
  'hash-512-nobigram': hash(512, [0.7, 0, 0.3]),
  'hash-512-fewgrams': hash(512, [0.6, 0.15, 0.25]),
  static: stat(true),
  'static-raw': stat(false),
  'hash512+static-0.5': () =>
    new ConcatEmbedder([
      { embedder: hash(512)(), weight: 0.5 },
      { embedder: stat()(), weight: 0.5 },
    ]),
  'hash512+static-0.7': () =>
    new ConcatEmbedder([
      { embedder: hash(512)(), weight: 0.3 },
      { embedder: stat()(), weight: 0.7 },
    ]),
  'hash512+static-0.3': () =>
    new ConcatEmbedder([
      { embedder: hash(512)(), weight: 0.7 },
      { embedder: stat()(), weight: 0.3 },
    ]),
};

const loadLocomo = () => loadLocomoFile(locomoPath);
const loadZh = () => loadZhFile(zhPath);

/** Okapi BM25 (k1 1.2, b 0.75) over the analyzer's content terms; a reference for the lexical half of a hybrid. */
function bm25Rank(c: Corpus): string[][] {
  const terms = (t: string) => {
    const a = analyze(t).terms;
    return a.tokens.filter((_, i) => a.weights[i] > STOPWORD_WEIGHT);
  };
  const docTerms = c.docs.map((d) => terms(d.text));
  const df = new Map<string, number>();
  docTerms.forEach((ts) => new Set(ts).forEach((t) => df.set(t, (df.get(t) ?? 0) + 1)));
  const avg = docTerms.reduce((s, ts) => s + ts.length, 0) / Math.max(1, docTerms.length);
  const tfs = docTerms.map((ts) => {
    const m = new Map<string, number>();
    ts.forEach((t) => m.set(t, (m.get(t) ?? 0) + 1));
    return m;
  });
  return c.queries.map((q) => {
    const qt = new Set(terms(q.text));
    const scores = tfs.map((tf, d) => {
      let s = 0;
      for (const t of qt) {
        const f = tf.get(t);
        if (!f) continue;
        const n = df.get(t) ?? 0;
        const idf = Math.log(1 + (c.docs.length - n + 0.5) / (n + 0.5));
        s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * docTerms[d].length) / avg));
      }
      return s;
    });
    return order(scores).map((i) => c.docs[i].id);
  });
}

function order(scores: number[]): number[] {
  return scores
    .map((s, i) => [s, i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map(([, i]) => i);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function rrf(a: string[], b: string[], k = 60): string[] {
  const s = new Map<string, number>();
  a.forEach((id, r) => s.set(id, (s.get(id) ?? 0) + 1 / (k + r + 1)));
  b.forEach((id, r) => s.set(id, (s.get(id) ?? 0) + 1 / (k + r + 1)));
  return [...s.entries()].sort((x, y) => y[1] - x[1]).map(([id]) => id);
}

function score(rankings: string[][], queries: Query[], into: Record<string, Stats>): void {
  rankings.forEach((ranked, qi) => {
    const q = queries[qi];
    for (const cat of [q.category, 'all']) {
      const st = (into[cat] ??= { n: 0, r1: 0, r5: 0, r10: 0, r20: 0, mrr: 0 });
      const gold = new Set(q.gold);
      const hits = (k: number) => ranked.slice(0, k).filter((id) => gold.has(id)).length / gold.size;
      st.n++;
      st.r1 += hits(1);
      st.r5 += hits(5);
      st.r10 += hits(10);
      st.r20 += hits(20);
      const first = ranked.findIndex((id) => gold.has(id));
      st.mrr += first < 0 ? 0 : 1 / (first + 1);
    }
  });
}

function finish(into: Record<string, Stats>): Record<string, Stats> {
  for (const st of Object.values(into)) for (const k of ['r1', 'r5', 'r10', 'r20', 'mrr'] as const) st[k] /= st.n;
  return into;
}

async function runChild(name: string): Promise<Result> {
  const locomo = loadLocomo();
  const zh = loadZh();
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const made = CANDIDATES[name]();
  const loadMs = performance.now() - t0;
  const locomoStats: Record<string, Stats> = {};
  const hybridStats: Record<string, Stats> = {};
  const zhStats: Record<string, Stats> = {};
  const zhHybrid: Record<string, Stats> = {};
  let embedded = 0;
  let embedMs = 0;
  const cosG: number[] = [];
  const cosU: number[] = [];
  const zhG: number[] = [];
  const zhO: number[] = [];
  let prevDocVecs: Float32Array[] = [];
  const rankCorpus = async (
    c: Corpus,
    gold: number[],
    other: number[],
  ): Promise<{ vec?: string[][]; lex: string[][] }> => {
    const lex = bm25Rank(c);
    if (made === 'bm25') return { lex };
    const t = performance.now();
    const dv = await made.embed(c.docs.map((d) => d.text));
    embedMs += performance.now() - t;
    embedded += c.docs.length;
    const qv = await made.embed(c.queries.map((q) => q.text));
    const byId = new Map(c.docs.map((d, i) => [d.id, i]));
    const vec = qv.map((v, qi) => {
      const scores = dv.map((d) => dot(v, d));
      gold.push(scores[byId.get(c.queries[qi].gold[0]) ?? 0]);
      if (prevDocVecs.length > 0) other.push(dot(v, prevDocVecs[qi % prevDocVecs.length]));
      else
        scores.forEach((s, i) => {
          if (!c.queries[qi].gold.includes(c.docs[i].id)) other.push(s);
        });
      return order(scores).map((i) => c.docs[i].id);
    });
    prevDocVecs = dv;
    return { vec, lex };
  };
  for (const c of locomo.values()) {
    const { vec, lex } = await rankCorpus(c, cosG, cosU);
    score(vec ?? lex, c.queries, locomoStats);
    if (vec)
      score(
        vec.map((r, i) => rrf(r, lex[i])),
        c.queries,
        hybridStats,
      );
  }
  prevDocVecs = [];
  const { vec, lex } = await rankCorpus(zh, zhG, zhO);
  score(vec ?? lex, zh.queries, zhStats);
  if (vec)
    score(
      vec.map((r, i) => rrf(r, lex[i])),
      zh.queries,
      zhHybrid,
    );
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  const sortedU = [...cosU].sort((a, b) => a - b);
  return {
    name,
    loadMs,
    rssMb: (process.memoryUsage().rss - rss0) / 2 ** 20,
    textsPerSec: embedMs > 0 ? (embedded / embedMs) * 1000 : NaN,
    locomo: finish(locomoStats),
    zh: finish(zhStats).zh,
    hybridLocomo: made === 'bm25' ? undefined : finish(hybridStats),
    hybridZh: made === 'bm25' ? undefined : finish(zhHybrid).zh,
    cosGold: mean(cosG),
    cosUnrelated: mean(cosU),
    cosUnrelatedP90: sortedU[Math.floor(sortedU.length * 0.9)] ?? NaN,
    zhCosGold: mean(zhG),
    zhCosOther: mean(zhO),
  };
}

function runInChild(name: string): Promise<Result> {
  return new Promise((ok, fail) => {
    const child = fork(__filename, [...process.argv.slice(2), '--child', name], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m) => ok(m as Result));
    child.once('exit', (code) => (code === 0 ? undefined : fail(new Error(`${name} exited ${code}`))));
  });
}

// NaN crosses the IPC channel as null.
const missing = (x: number | null | undefined): x is null | undefined => x == null || Number.isNaN(x);
const pct = (x: number | null | undefined) => (missing(x) ? '-' : (x * 100).toFixed(1));
const f2 = (x: number | null | undefined) => (missing(x) ? '-' : x.toFixed(2));

function report(results: Result[]): string {
  const cats = ['cat1', 'cat2', 'cat3', 'cat4', 'cat5', 'all'];
  const lines = [
    '### LoCoMo dev: evidence recall@5/@10/@20 and MRR (turn retrieval within each conversation)',
    '',
    `| candidate | ${cats.map((c) => `${c} R@5/R@10/R@20/MRR`).join(' | ')} | zh R@1 | zh R@5 | zh MRR | hybrid(RRF w/ bm25) all R@10 / zh R@1 |`,
    `| --- | ${cats.map(() => '---').join(' | ')} | --- | --- | --- | --- |`,
  ];
  for (const r of results) {
    const cell = (s?: Stats) => (s ? `${pct(s.r5)}/${pct(s.r10)}/${pct(s.r20)}/${f2(s.mrr)}` : '-');
    const hy = r.hybridLocomo ? `${pct(r.hybridLocomo.all?.r10)} / ${pct(r.hybridZh?.r1)}` : '-';
    lines.push(
      `| ${r.name} | ${cats.map((c) => cell(r.locomo[c])).join(' | ')} | ${pct(r.zh.r1)} | ${pct(r.zh.r5)} | ${f2(r.zh.mrr)} | ${hy} |`,
    );
  }
  const n = results[0]?.locomo;
  if (n) lines.push('', `questions with resolvable evidence: ${cats.map((c) => `${c} ${n[c]?.n ?? 0}`).join(', ')}`);
  lines.push(
    '',
    '### Cost and score spread',
    '',
    '| candidate | load ms | +RSS MB | turns embedded/s | cos(q, gold) | cos(q, unrelated) mean / p90 | zh cos gold / other |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const r of results) {
    lines.push(
      `| ${r.name} | ${r.loadMs.toFixed(0)} | ${r.rssMb.toFixed(0)} | ${missing(r.textsPerSec) ? '-' : r.textsPerSec.toFixed(0)} | ${f2(r.cosGold)} | ${f2(r.cosUnrelated)} / ${f2(r.cosUnrelatedP90)} | ${f2(r.zhCosGold)} / ${f2(r.zhCosOther)} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const child = args.get('child');
  if (child) {
    const result = await runChild(child);
    process.send?.(result);
    return;
  }
  if (!existsSync(locomoPath)) throw new Error(`LoCoMo file not found: ${locomoPath} (pass --locomo)`);
  const staticOk = existsSync(resolve(tableDir, 'vocab.txt'));
  const names = (args.get('only')?.split(',') ?? Object.keys(CANDIDATES)).filter((n) => staticOk || !/static/.test(n));
  const results: Result[] = [];
  for (const name of names) results.push(await runInChild(name));
  console.log(report(results));
  const json = args.get('json');
  if (json) writeFileSync(json, JSON.stringify(results, null, 2));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
