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

export interface RedundancyText {
  text: string;
  /** Directory overviews: the listing's scaffolding (names, counts) is not content. */
  isDirectory: boolean;
}

/** Distinct shingles of a text (a text shorter than one shingle is its own single shingle). */
export function shingles(text: string, isDirectory = false): Set<string> {
  const source = isDirectory ? text.replace(SIDECAR_NOISE, ' ') : text;
  const tokens = source.toLowerCase().match(TOKEN) ?? [];
  const out = new Set<string>();
  if (tokens.length === 0) return out;
  if (tokens.length < SHINGLE) {
    out.add(tokens.join(' '));
    return out;
  }
  for (let i = 0; i + SHINGLE <= tokens.length; i++) out.add(`${tokens[i]} ${tokens[i + 1]} ${tokens[i + 2]}`);
  return out;
}

/**
 * Indexes of redundant entries. Candidates for removal are visited from the last (lowest-ranked) to the
 * first, so of two near-copies the better-ranked one stays; an entry removed no longer covers others.
 * A directory listing never makes a file redundant (the listing summarises the file, not the reverse:
 * directory hits must not crowd out the files they list), and a directory with no content of its own
 * once its scaffolding is set aside is redundant too.
 */
export function redundantEntries(items: readonly RedundancyText[]): Set<number> {
  const sets = items.map((item) => shingles(item.text, item.isDirectory));
  const all = new Map<string, number>();
  const files = new Map<string, number>();
  const add = (map: Map<string, number>, set: Set<string>, by: number) => {
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
    for (const s of set) if ((counts.get(s) ?? 0) > 1) covered += 1;
    // A directory whose listing leaves less than one shingle of its own (`— # Summary…`, a gist cut to a word)
    // says nothing the scaffolding does not.
    const empty = item.isDirectory && (set.size === 0 || (set.size === 1 && [...set][0]!.split(' ').length < SHINGLE));
    if (!empty && (set.size === 0 || covered < REDUNDANT_COVERAGE * set.size)) continue;
    out.add(i);
    add(all, set, -1);
    if (!item.isDirectory) add(files, set, -1);
  }
  return out;
}
