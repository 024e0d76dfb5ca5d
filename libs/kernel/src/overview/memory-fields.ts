import { PY_WS, pyStrip } from '../text/py-text';

const TRAILER = new RegExp(`<!--[${PY_WS}]*MEMORY_FIELDS(?![\\p{L}\\p{N}_])[\\s\\S]*?[${PY_WS}]*-->`, 'gu');

/** Remove every `<!-- MEMORY_FIELDS … -->` comment from a memory file and trim (§1.4, §8.4). */
export function stripMemoryFields(content: string): string {
  return pyStrip(content.replace(TRAILER, ''));
}
