/**
 * Scoring for bench/locomo-bench.ts. Runs only after a block was served: what to serve is decided by
 * the server from the question text alone; the evidence is looked at here, never before.
 */
import { Question } from './locomo-data';
import { words } from './locomo-text';

// Answers are short ("7 May 2023", "Adoption agencies"): keep numbers and months, drop only glue words.
const ANSWER_GLUE = new Set(
  'a an the and or of to in on at by for with from is are was were be been her his their she he they it its i my'.split(
    ' ',
  ),
);

export interface Outcome {
  questionId: string;
  conversation: string;
  category: number;
  budget: number;
  evidence: number;
  /** Share of evidence turns whose `[dia_id]` tag or whole text is in `rendered`. */
  recall: number;
  /** Share of evidence turns whose whole text is in `rendered` (no credit for a tag alone). */
  strictRecall: number;
  /** Share of the gold answer's content words found in `rendered`; null without a usable answer. */
  answerCoverage: number | null;
  tokens: number;
  returned: number;
  latencyMs: number;
  /** Rank (1-based) in `entries` of the first entry carrying an evidence turn, or 0. */
  firstRank: number;
  /** `{category/tier: count}` over served entries, e.g. `events/full`. */
  served: Record<string, number>;
  error?: string;
}

export interface Aggregate {
  n: number;
  recall: number;
  strictRecall: number;
  /** Mean answer-word coverage over the questions that have an answer (a tag-free cross-check). */
  answerCoverage: number;
  hitRate: number;
  tokens: number;
  p50: number;
  p95: number;
  errors: number;
}

/** Which evidence turns a served block carries, by tag or by whole turn text. */
export function scoreServed(
  rendered: string,
  entries: { text: string }[],
  q: Question,
  turnText: ReadonlyMap<string, string>,
) {
  let tagged = 0;
  let whole = 0;
  let firstRank = 0;
  for (const id of q.evidence) {
    const text = turnText.get(id) ?? '';
    const hasText = text.length > 0 && rendered.includes(text);
    if (hasText || rendered.includes(`[${id}]`)) tagged += 1;
    if (hasText) whole += 1;
    const rank = entries.findIndex((e) => e.text.includes(`[${id}]`) || (text.length > 0 && e.text.includes(text))) + 1;
    if (rank > 0 && (firstRank === 0 || rank < firstRank)) firstRank = rank;
  }
  const n = Math.max(1, q.evidence.length);
  const want = q.answer === null ? [] : [...new Set(words(q.answer).filter((w) => !ANSWER_GLUE.has(w)))];
  const have = new Set(words(rendered));
  const answerCoverage = want.length ? want.filter((w) => have.has(w)).length / want.length : null;
  return { recall: tagged / n, strictRecall: whole / n, answerCoverage, firstRank };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function aggregate(outcomes: Outcome[]): Aggregate {
  const lat = outcomes.map((o) => o.latencyMs).sort((a, b) => a - b);
  const answered = outcomes.filter((o) => o.answerCoverage !== null);
  const mean = (f: (o: Outcome) => number) => outcomes.reduce((s, o) => s + f(o), 0) / Math.max(1, outcomes.length);
  return {
    n: outcomes.length,
    recall: mean((o) => o.recall),
    strictRecall: mean((o) => o.strictRecall),
    answerCoverage: answered.reduce((s, o) => s + (o.answerCoverage ?? 0), 0) / Math.max(1, answered.length),
    hitRate: mean((o) => (o.recall > 0 ? 1 : 0)),
    tokens: mean((o) => o.tokens),
    p50: percentile(lat, 0.5),
    p95: percentile(lat, 0.95),
    errors: outcomes.filter((o) => o.error).length,
  };
}

/** `{budget: {"1".."5", "all": Aggregate}}`. */
export function summarize(outcomes: Outcome[]): Record<string, Record<string, Aggregate>> {
  const out: Record<string, Record<string, Aggregate>> = {};
  for (const budget of [...new Set(outcomes.map((o) => o.budget))].sort((a, b) => a - b)) {
    const mine = outcomes.filter((o) => o.budget === budget);
    const row: Record<string, Aggregate> = {};
    for (const cat of [...new Set(mine.map((o) => o.category))].sort((a, b) => a - b))
      row[String(cat)] = aggregate(mine.filter((o) => o.category === cat));
    row['all'] = aggregate(mine);
    out[String(budget)] = row;
  }
  return out;
}

export function formatTable(title: string, summary: Record<string, Record<string, Aggregate>>): string {
  const lines = [title, 'budget  cat     n  recall  strict  answer  hit    tokens  p50 ms  p95 ms  err'];
  for (const [budget, row] of Object.entries(summary)) {
    for (const [cat, a] of Object.entries(row)) {
      lines.push(
        `${budget.padStart(6)}  ${cat.padEnd(4)} ${String(a.n).padStart(5)}  ${a.recall.toFixed(3)}   ${a.strictRecall.toFixed(3)}   ${a.answerCoverage.toFixed(3)}   ${a.hitRate.toFixed(3)}  ` +
          `${a.tokens.toFixed(0).padStart(6)}  ${a.p50.toFixed(1).padStart(6)}  ${a.p95.toFixed(1).padStart(6)}  ${String(a.errors).padStart(3)}`,
      );
    }
  }
  return lines.join('\n');
}

/** Mean number of served entries per `category/tier`, per budget: where the tokens went. */
export function servedMix(outcomes: Outcome[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const budget of [...new Set(outcomes.map((o) => o.budget))].sort((a, b) => a - b)) {
    const mine = outcomes.filter((o) => o.budget === budget);
    const sum: Record<string, number> = {};
    for (const o of mine) for (const [k, v] of Object.entries(o.served)) sum[k] = (sum[k] ?? 0) + v;
    out[String(budget)] = Object.fromEntries(
      Object.entries(sum)
        .sort()
        .map(([k, v]) => [k, +(v / Math.max(1, mine.length)).toFixed(2)]),
    );
  }
  return out;
}
