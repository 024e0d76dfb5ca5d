import { WordCorrection } from '../text/spelling-variants';
import { RetrievalOutcome } from './retrieval-merge';

/**
 * Most corrected words one request lists: 4 per query (the store's bound), and a request with planned
 * queries searches several; the bound keeps `explain` bounded whatever the planner wrote.
 */
export const MAX_LISTED_CORRECTIONS = 16;

/**
 * The words a request's searches read as variants (docs/context.md, "Misspelt query words"), each once: the
 * calls of one request search the same words in several scopes, and each scope's view may correct a word
 * differently (its own vocabulary); the first call's reading wins.
 */
export function correctionsOf(outcomes: readonly RetrievalOutcome[]): WordCorrection[] {
  const out = new Map<string, WordCorrection>();
  for (const o of outcomes) {
    if (!('result' in o) || !o.result?.corrected) continue;
    for (const c of o.result.corrected) {
      if (out.size === MAX_LISTED_CORRECTIONS) break;
      if (!out.has(c.from)) out.set(c.from, { from: c.from, to: c.to });
    }
  }
  return [...out.values()];
}
