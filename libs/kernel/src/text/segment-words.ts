const SEGMENTER = new Intl.Segmenter('zh', { granularity: 'word' });
const BREAK_AFTER = /^[^\p{L}\p{N}\p{M}]$/u;
// A piece without letters, digits or connectors (`_`) has no word-like segment: no need to ask ICU.
const WORDY = /[\p{L}\p{N}\p{Pc}]/u;

/**
 * Longest piece of text handed to `Intl.Segmenter` at once. Its cost grows much faster than the input
 * (80k CJK characters in one string take about 10 s), so longer text is cut into pieces, after a
 * non-letter where one is near: only a word straddling a forced cut (a CJK run this long) is split.
 */
export const SEGMENT_CHUNK = 256;

/** The word-like segments of `text` (Chinese-aware word segmentation), in order; linear in its length. */
export function wordSegments(text: string): string[] {
  const out: string[] = [];
  for (let start = 0; start < text.length;) {
    const end = chunkEnd(text, start);
    const piece = start === 0 && end === text.length ? text : text.slice(start, end);
    if (WORDY.test(piece)) for (const s of SEGMENTER.segment(piece)) if (s.isWordLike) out.push(s.segment);
    start = end;
  }
  return out;
}

function chunkEnd(text: string, start: number): number {
  const limit = start + SEGMENT_CHUNK;
  if (limit >= text.length) return text.length;
  for (let at = limit; at > start + SEGMENT_CHUNK / 2; at -= 1) if (BREAK_AFTER.test(text[at - 1]!)) return at;
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}
