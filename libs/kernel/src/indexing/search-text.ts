import { SEGMENT_CHUNK, wordSegments } from '../text/segment-words';
import { trimEndWhile, trimStartWhile } from '../text/trim';

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
// Tokens without letters, digits or connectors (`_`) have no word-like segments: skipping them spares
// a segmenter call per token.
const LETTER_OR_DIGIT_ANYWHERE = /[\p{L}\p{N}\p{Pc}]/u;
const isPunct = (ch: string): boolean => !LETTER_OR_DIGIT.test(ch);

/**
 * Text for the lexical index: words segmented by `Intl.Segmenter` (so CJK runs become words),
 * lower-cased and space-joined; identifiers keep their `_`, `.`, `/`, `-` parts both whole and split.
 * Tokens that need the segmenter are handed to it together (a call costs far more than a short token),
 * which leaves the order of the output unchanged.
 */
export function searchText(...parts: string[]): string {
  const out: string[] = [];
  let pending = '';
  const flush = (): void => {
    if (pending) for (const word of wordSegments(pending)) out.push(word);
    pending = '';
  };
  for (const part of parts) {
    for (const tok of part.toLowerCase().split(/\s+/)) {
      if (!tok) continue;
      if (/[a-z0-9][_./:-][a-z0-9]/.test(tok)) {
        flush();
        out.push(trimEndWhile(trimStartWhile(tok, isPunct), isPunct));
      }
      if (!CJK.test(tok) && /^[\p{L}\p{N}_]+$/u.test(tok)) {
        flush();
        out.push(tok);
      } else if (LETTER_OR_DIGIT_ANYWHERE.test(tok)) {
        pending = pending ? `${pending} ${tok}` : tok;
        if (pending.length >= SEGMENT_CHUNK) flush();
      }
    }
  }
  flush();
  return out.filter(Boolean).join(' ');
}
