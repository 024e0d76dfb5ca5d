/**
 * Near-duplicate detection over served texts (docs/context.md, "Redundancy"): each text becomes a set of
 * word 3-shingles (CJK: character 3-shingles); an entry is redundant when at least
 * {@link REDUNDANT_COVERAGE} of its shingles also occur in the other entries kept. Linear in the total
 * text: one pass to count shingles over every entry, one pass per entry to test its own.
 */

/** Share of an entry's shingles found elsewhere from which it adds nothing worth its tokens. */
export const REDUNDANT_COVERAGE = 0.8;
const SHINGLE = 3;
// Letters, digits, and single CJK ideographs/kana/hangul as tokens of their own (no segmenter: linear and cheap).
const TOKEN = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[\p{L}\p{N}]+/gu;
// Our own directory sidecars (libs/kernel indexing): `# name`, `N items in uri.`, the `Dates:`/`Topics:`
// summary derived from the children, `- child:`, `name: N items (…) —` (also cut short: `name: 1…`,
// `name: 3 items (2026-12-02; user,…`), and a child that stands in a nested abstract's `— a; b; c` list by its
// bare name (it had no abstract of its own yet): `— entities; events;`.
const SIDECAR_NOISE =
  /^#[^\n]*$|^\d{1,9} items? in \S+$|^(?:Dates|Topics): [^\n]*$|^- [^\s:]+:?|[^\s:]{1,64}: \d{1,9}(?: items?(?: \([^)\n]*(?:\)|…))?|…)|… and \d+ more|(?<=(?:—|;) )[^\s:;—]{1,64}(?=;|$| —)/gm;

// Opaque identifiers (message ids a quote line ends with, hashes): ASCII runs of 16+ with 2+ digits. They
// make every copy of a quote look new, and say nothing to the reader.
const LONG_WORD = /[A-Za-z0-9_]{16,}/g;
const TWO_DIGITS = /[0-9].*[0-9]/;
// A listing joins its children's gists (`— a gist…; b gist; c`): a shingle across two gists is no content.
// Starts at the separator itself: a leading `\s*` rescanned a long whitespace run from each of its spaces.
const GIST_BREAK = /((?:—|;|…|\n)[\s—;…]*)/;

export interface RedundancyText {
  text: string;
  /** Directory overviews: the listing's scaffolding (names, counts) is not content. */
  isDirectory: boolean;
}

/**
 * Distinct shingles of a text (a text shorter than one shingle is its own single shingle). A directory's
 * listing is shingled gist by gist, and a gist cut short to less than one shingle (`# Lisbon -…`) is dropped.
 */
export function shingles(text: string, isDirectory = false): Set<string> {
  // Scaffolding first: an identifier removed before it would leave a listed name's `.md:` behind as a word.
  const plain = (isDirectory ? text.replace(SIDECAR_NOISE, ' ') : text).replace(LONG_WORD, (w) =>
    TWO_DIGITS.test(w) && /[A-Za-z]/.test(w) ? ' ' : w,
  );
  const out = new Set<string>();
  if (!isDirectory) {
    addShingles(plain, out, true);
    return out;
  }
  for (const gist of gists(plain)) addShingles(gist.text, out, !gist.cut);
  return out;
}

/** Shingle sets of texts (read only). */
export type ShingleSets = (text: string, isDirectory?: boolean) => ReadonlySet<string>;

/**
 * {@link shingles}, computed once per text: a plan checks its served entries again after every refill round
 * (up to four times), and most texts are the same each time.
 */
export function shingleMemo(): ShingleSets {
  const files = new Map<string, ReadonlySet<string>>();
  const directories = new Map<string, ReadonlySet<string>>();
  return (text, isDirectory = false) => {
    const memo = isDirectory ? directories : files;
    let set = memo.get(text);
    if (!set) memo.set(text, (set = shingles(text, isDirectory)));
    return set;
  };
}

/** A listing's gists, in order; `cut` when the gist was cut short (its separator opens with `…`). */
export function gists(listing: string): { text: string; cut: boolean }[] {
  // split() with a capturing group alternates piece, break, piece, …
  const parts = listing.split(GIST_BREAK);
  const out: { text: string; cut: boolean }[] = [];
  for (let i = 0; i < parts.length; i += 2)
    out.push({ text: parts[i]!, cut: parts[i + 1]?.trimStart().startsWith('…') ?? false });
  return out;
}

function addShingles(text: string, out: Set<string>, keepShort: boolean): void {
  const tokens = text.toLowerCase().match(TOKEN) ?? [];
  if (tokens.length === 0) return;
  if (tokens.length < SHINGLE) {
    if (keepShort) out.add(tokens.join(' '));
    return;
  }
  for (let i = 0; i + SHINGLE <= tokens.length; i++) out.add(`${tokens[i]} ${tokens[i + 1]} ${tokens[i + 2]}`);
}

/**
 * Indexes of redundant entries. Candidates for removal are visited from the last (lowest-ranked) to the
 * first, so of two near-copies the better-ranked one stays; an entry removed no longer covers others.
 * A directory listing never makes a file redundant (the listing summarises the file, not the reverse:
 * directory hits must not crowd out the files they list), and a directory with no content of its own
 * once its scaffolding is set aside is redundant too. A file withdrawn as redundant (here or in an earlier
 * round: `withdrawn`) still covers a directory's listing of it: what it said is served by the others. What
 * the session was given in earlier turns (`seen`) covers every entry.
 */
export function redundantEntries(
  items: readonly RedundancyText[],
  withdrawn: readonly RedundancyText[] = [],
  seen: readonly RedundancyText[] = [],
  shinglesOf: ShingleSets = shingles,
): Set<number> {
  const sets = items.map((item) => shinglesOf(item.text, item.isDirectory));
  const all = new Map<string, number>();
  const files = new Map<string, number>();
  const carried = new Set<string>();
  for (const w of withdrawn) if (!w.isDirectory) for (const s of shinglesOf(w.text)) carried.add(s);
  // Served in an earlier turn of the session (docs/context.md, "Across turns"): the agent holds it, so it covers all.
  const held = new Set<string>();
  for (const w of seen) for (const s of shinglesOf(w.text, w.isDirectory)) held.add(s);
  const add = (map: Map<string, number>, set: ReadonlySet<string>, by: number) => {
    for (const s of set) map.set(s, (map.get(s) ?? 0) + by);
  };
  sets.forEach((set, i) => {
    add(all, set, 1);
    if (!items[i]!.isDirectory) add(files, set, 1);
  });
  const out = new Set<number>();
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    const set = sets[i]!;
    if (!item.text) continue;
    const counts = item.isDirectory ? all : files;
    let covered = 0;
    for (const s of set)
      if ((counts.get(s) ?? 0) > 1 || held.has(s) || (item.isDirectory && carried.has(s))) covered += 1;
    // A directory whose listing leaves less than one shingle of its own (`— # Summary…`, a gist cut to a word)
    // says nothing the scaffolding does not.
    const empty = item.isDirectory && (set.size === 0 || (set.size === 1 && [...set][0]!.split(' ').length < SHINGLE));
    if (!empty && (set.size === 0 || covered < REDUNDANT_COVERAGE * set.size)) continue;
    out.add(i);
    add(all, set, -1);
    if (!item.isDirectory) {
      add(files, set, -1);
      for (const s of set) carried.add(s);
    }
  }
  return out;
}
