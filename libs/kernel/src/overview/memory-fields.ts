import { PY_WS, pyStrip } from '../text/py-text';

const OPENER = new RegExp(`<!--[${PY_WS}]*MEMORY_FIELDS(?![\\p{L}\\p{N}_])`, 'uy');

/**
 * Remove every `<!-- MEMORY_FIELDS … -->` comment from a memory file and trim (docs/contract.md#tiers-and-sidecars,
 * #tier-texts).
 * A scan with indexOf rather than one regex: a lazy `[\s\S]*?-->` rescans to the end of the text
 * from every unclosed opener, which is quadratic in hostile input.
 */
export function stripMemoryFields(content: string): string {
  let out = '';
  let from = 0;
  for (let at = content.indexOf('<!--'); at >= 0; at = content.indexOf('<!--', at + 1)) {
    if (at < from) continue;
    OPENER.lastIndex = at;
    if (!OPENER.test(content)) continue;
    const close = content.indexOf('-->', OPENER.lastIndex);
    if (close < 0) break; // no later opener can be closed either
    out += content.slice(from, at);
    from = close + 3;
  }
  return pyStrip(out + content.slice(from));
}

/**
 * The metadata object of a memory file's `<!-- MEMORY_FIELDS {…} -->` trailer without its `content`
 * key (fs attrs), or null when there is none or it is not a JSON object. Scans with indexOf, as above.
 */
export function readMemoryFields(content: string): Record<string, unknown> | null {
  for (let at = content.indexOf('<!--'); at >= 0; at = content.indexOf('<!--', at + 1)) {
    OPENER.lastIndex = at;
    if (!OPENER.test(content)) continue;
    const close = content.indexOf('-->', OPENER.lastIndex);
    if (close < 0) return null;
    try {
      const parsed: unknown = JSON.parse(content.slice(OPENER.lastIndex, close));
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
      const { content: _body, ...rest } = parsed as Record<string, unknown>;
      return rest;
    } catch {
      return null;
    }
  }
  return null;
}
