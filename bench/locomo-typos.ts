/**
 * `bench:locomo --typos R`: the questions as a hurried user types them. Each word of five letters or more
 * gets one edit with probability R (a swap of two neighbouring letters, a letter dropped, doubled, or
 * replaced by its keyboard neighbour), never in its first letter. Seeded by the question's id and the
 * word's place, so every run and both rankers (Muninn, the BM25 baseline) get the same misspellings.
 */
const NEIGHBOURS: Record<string, string> = {
  q: 'wa',
  w: 'qes',
  e: 'wrd',
  r: 'etf',
  t: 'ryg',
  y: 'tuh',
  u: 'yij',
  i: 'uok',
  o: 'ipl',
  p: 'ol',
  a: 'qsz',
  s: 'adw',
  d: 'sfe',
  f: 'dgr',
  g: 'fht',
  h: 'gjy',
  j: 'hku',
  k: 'jli',
  l: 'ko',
  z: 'xa',
  x: 'zcs',
  c: 'xvd',
  v: 'cbf',
  b: 'vng',
  n: 'bmh',
  m: 'nj',
};

export function misspell(text: string, rate: number, seed: string): string {
  if (rate <= 0) return text;
  let place = 0;
  return text.replace(/[A-Za-z]{5,}/g, (word) => {
    const h = hash(`${seed}\u0000${place++}`);
    if ((h % 10_000) / 10_000 >= rate) return word;
    const at = 1 + ((h >>> 14) % (word.length - 2)); // an inner letter
    const c = word[at];
    switch ((h >>> 24) % 4) {
      case 0:
        return word.slice(0, at) + word[at + 1] + c + word.slice(at + 2);
      case 1:
        return word.slice(0, at) + word.slice(at + 1);
      case 2:
        return word.slice(0, at) + c + word.slice(at);
      default: {
        const near = NEIGHBOURS[c.toLowerCase()] ?? c;
        return word.slice(0, at) + near[(h >>> 8) % near.length] + word.slice(at + 1);
      }
    }
  });
}

/** FNV-1a, 32 bits. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
