/**
 * Text helpers for the LoCoMo harness's LLM-free memory extraction: sentence splitting, content words
 * (English and CJK) and per-conversation IDF.
 */
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

export const STOP = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto about as is am are was were be been being ' +
    'do does did doing done have has had having i me my mine myself we us our you your yours he him his she her it its they them their ' +
    'this that these those there here what which who whom whose when where why how all any both each some such no not nor ' +
    'only own same so than too very can could will would shall should may might must just also up down out over under again ' +
    'further once s t d ll m re ve let yes yeah oh hey hi hello wow thanks thank really great awesome cool glad good nice sure ' +
    'lot lots much many more most get got getting go going went gone know think thought feel felt like love amazing totally ' +
    'definitely always never ever something anything everything things thing way well even still back make made ' +
    "i'm it's that's you're don't can't i've i'll i'd we're they're what's there's let's didn't doesn't isn't " +
    '的 了 是 在 吗 呢 吧 啊 呀 和 与 也 都 就 这 那 这个 那个 有 个 一个 很 还 又 什么 怎么 怎样 哪 哪里 谁 为什么 ' +
    '多少 几 之 而 及 或 被 把 对 从 到 给 让 着 得 地 嘛 一下 一些 我 你 他 她 我们 你们 他们 真的 非常 觉得 没有 可以 已经 就是 现在'
  ).split(' '),
);

/** Lower-cased word tokens; CJK runs are segmented into words. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const tok of text.toLowerCase().match(/[\p{L}\p{N}'’]+/gu) ?? []) {
    const t = tok.replace(/’/g, "'").replace(/^'+|'+$/g, '');
    if (!t) continue;
    if (!CJK.test(t)) {
      out.push(t.endsWith("'s") ? t.slice(0, -2) : t);
      continue;
    }
    for (const s of segmenter.segment(t)) if (s.isWordLike) out.push(s.segment);
  }
  return out;
}

/** Distinct content words (no function words, no 1-letter Latin tokens). */
export function contentWords(text: string): string[] {
  return [...new Set(words(text).filter((w) => !STOP.has(w) && (CJK.test(w) || w.length > 1)))];
}

/** Sentences of one turn; CJK sentence marks end a sentence without a following space. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|(?<=[。！？；])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function isCjk(text: string): boolean {
  return CJK.test(text);
}

/** Inverse document frequency over a set of documents (here: the turns of one conversation). */
export class Idf {
  private readonly df = new Map<string, number>();
  private n = 0;

  constructor(docs: Iterable<string>) {
    for (const d of docs) {
      this.n += 1;
      for (const w of contentWords(d)) this.df.set(w, (this.df.get(w) ?? 0) + 1);
    }
  }

  of(word: string): number {
    return Math.log(1 + this.n / (1 + (this.df.get(word) ?? 0)));
  }
}

/** How much a sentence says: summed IDF of its content words, favouring names and numbers, damped for length. */
export function informativeness(sentence: string, idf: Idf): number {
  const cw = contentWords(sentence);
  if (cw.length < 3 && !isCjk(sentence)) return 0;
  const base = cw.reduce((s, w) => s + idf.of(w), 0);
  const specific = /\d/.test(sentence) || /(?<![.!?]\s|^)\b[A-Z][a-z]{2,}/.test(sentence) || /[《“"]/.test(sentence);
  return (base * (specific ? 1.3 : 1)) / Math.sqrt(1 + cw.length / 12);
}

/** Cuts to about `limit` characters at a word boundary. */
export function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit);
  const space = head.lastIndexOf(' ');
  return `${space > limit * 0.6 ? head.slice(0, space) : head}…`;
}

export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return s.slice(0, 48) || 'x';
}
