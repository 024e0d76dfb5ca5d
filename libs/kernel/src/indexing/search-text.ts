const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/**
 * Text for the lexical index: words segmented by `Intl.Segmenter` (so CJK runs become words),
 * lower-cased and space-joined; identifiers keep their `_`, `.`, `/`, `-` parts both whole and split.
 */
export function searchText(...parts: string[]): string {
  const out: string[] = [];
  for (const part of parts) {
    for (const tok of part.toLowerCase().split(/\s+/)) {
      if (!tok) continue;
      if (/[a-z0-9][_./:-][a-z0-9]/.test(tok)) out.push(tok.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
      if (!CJK.test(tok) && /^[\p{L}\p{N}_]+$/u.test(tok)) {
        out.push(tok);
        continue;
      }
      for (const s of segmenter.segment(tok)) if (s.isWordLike) out.push(s.segment);
    }
  }
  return out.filter(Boolean).join(' ');
}
