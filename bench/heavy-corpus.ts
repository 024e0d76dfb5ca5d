/**
 * The corpus of the benches that send the largest valid requests (`bench:heavy`, `bench:neighbour`): memories of
 * words drawn from one 44-word vocabulary, so every query word is in nearly every memory and every request finds as
 * many candidates as it may.
 */

export const WORDS = (
  'harbor lantern copper meadow quartz violet ember thunder saffron glacier orchard canyon falcon river pottery ' +
  'camping painting charity race novel guitar violin garden puppy kitten beach mountain hiking museum concert ' +
  'festival recipe baking soccer tennis chess yoga marathon poetry sculpture'
).split(' ');

/** The memory kinds the seeded memories are spread over, in turn. */
export const KINDS = ['events', 'entities', 'preferences', 'experiences'];

/** The six quota buckets at their largest. */
export const ALL_BUCKETS = Object.fromEntries(
  ['events', 'entities', 'preferences', 'experiences', 'resources', 'skills'].map((k) => [k, 1000]),
);

/** A deterministic generator, so every run seeds the same memories. */
export function generator(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

/** The k-th query: four vocabulary words and two function words. */
export const query = (k: number): string =>
  `${WORDS[k % 40]} ${WORDS[(k + 5) % 40]} ${WORDS[(k + 11) % 40]} and the ${WORDS[(k + 20) % 40]}`;

/** The text of a memory of `words` vocabulary words drawn by `next`. */
export function memoryText(next: () => number, k: number, words = 150): string {
  return `Note ${k}. ${Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ')}.`;
}
