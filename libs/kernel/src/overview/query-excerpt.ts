import { estimateTokens } from '../budget/token-estimate';
import { extractSummary } from './memory-summary';

/**
 * Query-focused excerpts (docs/context.md, "Excerpts"): when a memory's whole body does not fit, the
 * overview tier serves the body lines that match the query — whole lines, in document order, `…` where
 * lines were skipped — under a short head (the summary's first line), instead of always the leading
 * text. Linear: each line is tested once per query term (at most {@link MAX_FOCUS_TERMS}).
 */

export const MAX_FOCUS_TERMS = 24;
/** Lines considered per body (a longer body's tail is not excerpted). */
const MAX_LINES = 2000;
const GAP = '…';
/** The head may take 1/HEAD_SHARE of an excerpt's allowance. */
const HEAD_SHARE = 8;
const CJK_RUN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+/gu;
const LATIN_WORD = /[\p{L}\p{N}]+/gu;
/** A question mark, ASCII or full-width: Chinese and Japanese chat write `？`. */
const QUESTION = /[?？]/;
const HEADING = /^#{1,6}\s/;
/** Function words, and question words that every line would "match" (also left out of directory topics). */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'the and for with from into about that this these those there here what which who whom whose when where why how ' +
    'did does doing done have has had having was were are been being will would could should ' +
    'can may might must shall ' +
    'you your yours she her hers him his they them their its our ours not any all some much many more most than then ' +
    'also just only very too out over under again once ever never yes yeah did kind sort like get got'
  ).split(' '),
);

/** Light stemming: "painted", "paints", "painting" meet "paint" (query terms only; lines match by substring). */
function stem(word: string): string {
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (word.length - suffix.length >= 4 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

/** Focus terms of a query: stemmed Latin words (3+ letters, no function words) and CJK character pairs. */
export function focusTerms(query: string): string[] {
  const out = new Set<string>();
  const lower = query.toLowerCase().slice(0, 4000);
  for (const m of lower.matchAll(CJK_RUN)) {
    const run = m[0];
    if (run.length === 1) out.add(run);
    for (let i = 0; i + 1 < run.length; i++) out.add(run.slice(i, i + 2));
  }
  for (const m of lower.replace(CJK_RUN, ' ').matchAll(LATIN_WORD)) {
    const w = m[0];
    if (w.length >= 3 && !FUNCTION_WORDS.has(w)) out.add(stem(w));
  }
  return [...out].slice(0, MAX_FOCUS_TERMS);
}

/**
 * How much a term found in `holding` of `total` texts tells them apart: log(1 + total / holding). Serves
 * both levels: the request's bodies (focusWeights) and one body's lines (lineScores).
 */
function rarity(total: number, holding: number): number {
  return Math.log(1 + total / Math.max(1, holding));
}

/** Term weights over a set of bodies: rarer terms count more (log inverse share of bodies holding them). */
export function focusWeights(terms: readonly string[], bodies: readonly string[]): Map<string, number> {
  const lowered = bodies.map((b) => b.toLowerCase());
  const n = Math.max(1, lowered.length);
  const weights = new Map<string, number>();
  for (const t of terms) {
    const df = lowered.reduce((k, b) => k + (b.includes(t) ? 1 : 0), 0);
    weights.set(t, rarity(n, df));
  }
  return weights;
}

/**
 * The excerpt of `content` for the weighted terms within `allowance` tokens (text only), or null when
 * no body line matches a term (the caller then serves the plain overview). Three rules beyond "lines
 * that match" (docs/context.md, "Excerpts"): the head's own line is never served again; a term counts
 * by how rare it is among this body's lines too, so a name on every line does not pull in small talk;
 * and the line after a matching question is scored like the question, because it holds the answer.
 */
export function queryExcerpt(content: string, weights: ReadonlyMap<string, number>, allowance: number): string | null {
  if (!content || weights.size === 0 || allowance <= 0) return null;
  const lines = content.split('\n', MAX_LINES).map((l) => l.trim());
  const headLine = (extractSummary(content).split('\n')[0] ?? '').trim();
  const headAt = headLine ? lines.indexOf(headLine) : -1;
  const scores = lineScores(lines, weights, headAt);
  const scored: { at: number; score: number; tokens: number }[] = [];
  scores.forEach((score, at) => {
    if (score > 0) scored.push({ at, score, tokens: estimateTokens(lines[at]!) + 1 });
  });
  if (scored.length === 0) return null;
  // A head that says what the memory is: the summary's first line, cut to an eighth of the allowance
  // (its date and who come first; a quarter left fewer lines for the evidence, docs/context.md "Excerpts").
  const head = cutToTokens(headLine, Math.floor(allowance / HEAD_SHARE));
  let used = head ? estimateTokens(head) + 1 : 0;
  const picked: number[] = [];
  for (const s of scored.sort((a, b) => b.score - a.score || a.at - b.at)) {
    if (used + s.tokens + 1 > allowance) continue;
    picked.push(s.at);
    used += s.tokens + 1;
  }
  if (picked.length === 0) return null;
  picked.sort((a, b) => a - b);
  const out: string[] = head ? [head] : [];
  let previous = -2;
  for (const at of picked) {
    if (at !== previous + 1 && (out.length > 0 || at > 0)) out.push(GAP);
    out.push(lines[at]!);
    previous = at;
  }
  if (previous < lines.length - 1 && lines.slice(previous + 1).some(Boolean)) out.push(GAP);
  return out.join('\n');
}

/**
 * Each line's score: the sum over the terms it contains of the term's request weight times its rarity
 * among this body's lines (log(1 + lines / lines holding it)). Headings, blank lines and the head's own
 * line (`skip`) score 0. Then a question (a matching line holding a `?` or `？`) lends its score to the next
 * line: in a chat log that is the reply. One pass per term over the lines.
 */
function lineScores(lines: readonly string[], weights: ReadonlyMap<string, number>, skip: number): number[] {
  const usable = lines.map((l, at) => at !== skip && l !== '' && !HEADING.test(l));
  const lowered = lines.map((l, at) => (usable[at] ? l.toLowerCase() : ''));
  const n = Math.max(1, usable.filter(Boolean).length);
  const scores = new Array<number>(lines.length).fill(0);
  for (const [term, w] of weights) {
    const holders: number[] = [];
    lowered.forEach((l, at) => {
      if (usable[at] && l.includes(term)) holders.push(at);
    });
    const weight = w * rarity(n, holders.length);
    for (const at of holders) scores[at] += weight;
  }
  for (let at = lines.length - 2; at >= 0; at--) {
    if (scores[at]! > 0 && QUESTION.test(lines[at]!) && usable[at + 1])
      scores[at + 1] = Math.max(scores[at + 1]!, scores[at]!);
  }
  return scores;
}

/** `text` cut at a word boundary to about `tokens` estimated tokens, with `…` when cut. */
function cutToTokens(text: string, tokens: number): string {
  if (!text || tokens <= 0) return '';
  if (estimateTokens(text) <= tokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (estimateTokens(text.slice(0, mid)) + 1 <= tokens) lo = mid;
    else hi = mid - 1;
  }
  const cut = text.slice(0, lo);
  const space = cut.lastIndexOf(' ');
  return `${(space > lo / 2 ? cut.slice(0, space) : cut).trimEnd()} ${GAP}`;
}
