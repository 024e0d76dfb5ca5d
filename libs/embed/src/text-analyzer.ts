import { wordSegments } from '@app/kernel';

/** Tokens of one feature family with a weight each (1 = a rare content word). */
export interface WeightedTokens {
  tokens: string[];
  weights: number[];
}

/** One text split into the feature families the local embedder hashes. */
export interface AnalyzedText {
  /** Stemmed Latin words, identifiers and segmented CJK words, in text order. */
  terms: WeightedTokens;
  /** Adjacent content-term pairs (`a b`). */
  bigrams: WeightedTokens;
  /** Latin character 3/4-grams of content words, CJK character unigrams and bigrams. */
  grams: WeightedTokens;
}

export const STOPWORD_WEIGHT = 0.1;
export const NUMBER_WEIGHT = 0.4;

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/;
const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+/g;
const WORD = /[\p{L}\p{N}\p{M}_]+(?:['’]\p{L}+)?/gu;
// The look-behind makes a match start only at a word's first character: without it, one long word
// without separators is rescanned from each of its positions (quadratic).
const IDENTIFIER = /(?<![\p{L}\p{N}_])[\p{L}\p{N}_]+(?:[./:\\#@-][\p{L}\p{N}_]+)+/gu;

// Function words carry no topic: they are kept at a low weight instead of dropped so "to be or not to be" still embeds.
const EN_STOP = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto about as is am are was were be been being ' +
    'do does did doing done have has had having i me my mine we us our you your he him his she her it its they them their ' +
    'this that these those there here what which who whom whose when where why how all any both each some such no not nor ' +
    'only own same so than too very can could will would shall should may might must just also up down out over under again ' +
    "further once s t d ll m re ve don't didn't isn't wasn't can't won't i'm it's that's there's let's yes yeah oh hey hi " +
    'really get got go going went like know think thing things one lot much many more most other something anything'
  ).split(' '),
);
const ZH_STOP = new Set(
  (
    '的 了 是 在 我 你 他 她 它 们 我们 你们 他们 吗 呢 吧 啊 呀 和 与 也 都 就 这 那 这个 那个 有 个 一 一个 不 没 没有 ' +
    '很 还 又 要 会 能 可以 什么 怎么 怎样 哪 哪里 哪儿 谁 为什么 多少 几 之 而 及 或 被 把 对 从 到 给 让 上 下 中 ' +
    '自己 之前 之后 时候 过 着 得 地 呢 嘛 最近 一下 一些'
  ).split(' '),
);

/** Light English suffix stripping: enough to join paint/painted/painting without a stemmer dependency. */
export function stem(word: string): string {
  let w = word.replace(/['’]s$/, '');
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (!/(ss|us|is)$/.test(w) && w.endsWith('s')) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  const n = w.length;
  return n > 3 && w[n - 1] === w[n - 2] && !/[lsz]/.test(w[n - 1]) ? w.slice(0, -1) : w;
}

/** Normalises (NFKC, lower case) and splits a text into hashed-feature families; English and CJK. */
export function analyze(text: string): AnalyzedText {
  const t = text.normalize('NFKC').toLowerCase();
  const out: AnalyzedText = { terms: family(), bigrams: family(), grams: family() };
  let prev: { term: string; w: number } | undefined;
  const addTerm = (term: string, w: number, isStop: boolean): void => {
    push(out.terms, term, isStop ? STOPWORD_WEIGHT : w);
    if (isStop) return;
    if (prev !== undefined) push(out.bigrams, `${prev.term} ${term}`, Math.sqrt(prev.w * w));
    prev = { term, w };
  };
  const addLatin = (word: string): void => {
    const bare = word.replace(/['’]s$/, '');
    if (/^\d+$/.test(word)) return addTerm(word, NUMBER_WEIGHT, false); // dates and counts: match, but do not dominate
    const isStop = EN_STOP.has(word);
    const w = isStop ? STOPWORD_WEIGHT : 1;
    addTerm(isStop ? word : stem(bare), w, isStop);
    if (isStop || word.length < 3) return;
    const padded = `^${bare}$`;
    for (let n = 3; n <= 4; n++)
      for (let i = 0; i + n <= padded.length; i++) push(out.grams, padded.slice(i, i + n), w);
  };
  for (const m of t.matchAll(IDENTIFIER)) if (!CJK.test(m[0])) push(out.terms, m[0], 1);
  for (const m of t.matchAll(WORD)) {
    const w = m[0];
    if (!CJK.test(w)) {
      addLatin(w);
      continue;
    }
    for (const seg of wordSegments(w)) {
      if (CJK.test(seg)) addTerm(seg, 1, ZH_STOP.has(seg));
      else addLatin(seg);
    }
    for (const run of w.matchAll(CJK_RUN)) addCjkGrams(run[0], out.grams);
  }
  return out;
}

function family(): WeightedTokens {
  return { tokens: [], weights: [] };
}

function push(f: WeightedTokens, token: string, weight: number): void {
  f.tokens.push(token);
  f.weights.push(weight);
}

function addCjkGrams(run: string, grams: WeightedTokens): void {
  const chars = Array.from(run);
  for (let i = 0; i < chars.length; i++) {
    push(grams, chars[i], ZH_STOP.has(chars[i]) ? STOPWORD_WEIGHT : 1);
    if (i + 1 < chars.length) push(grams, chars[i] + chars[i + 1], 1);
  }
}
