/**
 * Typo-tolerant lexical matching (docs/context.md, "Misspelt query words"): a query word no memory of the
 * caller's view holds is looked up again as each word one edit away from it, and the variant the most
 * memories hold stands in for it. Only alphabetic words of {@link MIN_CORRECTED_LENGTH} to
 * {@link MAX_CORRECTED_LENGTH} letters are corrected: a shorter word has too many real neighbours ("cat"
 * is one edit from "car", "hat", "cut") and the variants of a longer one grow with its length.
 */
export const MIN_CORRECTED_LENGTH = 5;
export const MAX_CORRECTED_LENGTH = 20;
/** Unmatched query words looked up again as their one-edit variants, per query (the first ones in query order). */
export const MAX_CORRECTED_TERMS = 4;

/** A query word (`from`, as segmented) read as its variant (`to`). */
export interface WordCorrection {
  from: string;
  to: string;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
// Letters of alphabets with a stemmer or case (Latin, Greek, Cyrillic): a CJK query is split into characters
// and pairs, where one edit makes a different word, not a typo.
const WORD = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]+$/u;
const LATIN = /\p{Script=Latin}/u;

/** Whether an unmatched query term is worth looking up again as its one-edit variants. */
export function correctable(term: string): boolean {
  const length = [...term].length;
  return length >= MIN_CORRECTED_LENGTH && length <= MAX_CORRECTED_LENGTH && WORD.test(term);
}

/**
 * Every distinct word one edit (Damerau: a letter dropped, two neighbours swapped, a letter replaced or
 * inserted) from `term`, without `term` itself. The first letter stays (only its swap with the second is
 * an edit): people rarely mistype it, and with it free, words no memory holds were read as unrelated ones
 * (measured on bench:locomo: "james" as "games", "married" as "harried", "mother" as "other").
 * Replacements and insertions use a–z (for a Latin word) and the word's own letters, so `café` may become
 * `cafe` and a Cyrillic word stays in its alphabet. At most 2n + 2n · |letters| words for n letters:
 * linear in the word's length.
 */
export function spellingVariants(term: string): string[] {
  const chars = [...term];
  const n = chars.length;
  const letters = [...new Set([...(LATIN.test(term) ? ALPHABET : ''), ...chars])];
  const out = new Set<string>();
  const at = (i: number, j: number) => chars.slice(i, j).join('');
  if (n > 1) out.add(chars[1] + chars[0] + at(2, n));
  for (let i = 1; i <= n; i++) {
    // Each position's three pieces are joined once, not once per letter.
    const head = at(0, i);
    const tail = at(i, n);
    const after = at(i + 1, n);
    if (i < n) out.add(head + after);
    if (i < n - 1) out.add(head + chars[i + 1] + chars[i] + at(i + 2, n));
    for (const c of letters) {
      if (i < n && c !== chars[i]) out.add(head + c + after);
      out.add(head + c + tail);
    }
  }
  out.delete(term);
  return [...out];
}

/**
 * `query` with each corrected word replaced by its variant where it stands as a whole word (any case), for
 * what reads the query's words after the search: the excerpts' focus. Corrected words are letters only, so
 * each pattern is literal; one linear pass per correction.
 */
export function correctedQuery(query: string, corrections: readonly WordCorrection[]): string {
  let out = query;
  for (const { from, to } of corrections) {
    if (!correctable(from)) continue;
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}_])${from}(?![\\p{L}\\p{N}_])`, 'giu'), () => to);
  }
  return out;
}
