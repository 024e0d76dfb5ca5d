import { cutCodePoints, PY_WS, pyRstrip, pySplitLines, pyStrip } from '../text/py-text';

/** Muninn's digest header line (a deliberate difference from the reference's product-named one). */
export const DIGEST_HEADER = 'Memory digest:';
export const NO_RELEVANT_MEMORY = 'NO_RELEVANT_MEMORY';
const MAX_BULLET_CHARS = 500;

const BULLET = new RegExp(`^[-*][${PY_WS}]+`);
// A citation runs until whitespace or a closing delimiter, so a trailing `.` stays in and invalidates it.
const CITATION = new RegExp(`viking://[^${PY_WS}<>"')\\]]+`, 'g');

/** `viking://` citations in a bullet, whatever the marker before them (`source:` or `来源：`). */
export function citedUris(text: string): string[] {
  return text.match(CITATION) ?? [];
}

/**
 * Keep only cited bullets of a model's answer (docs/contract.md#digest-rewrite): `-`/`*` lines become `- `, cut to 500
 * chars;
 * a bullet needs at least one citation and, when `validUris` is given, every citation served.
 * Returns "" or `Memory digest:\n- …`.
 */
export function normalizeDigest(raw: unknown, maxBullets = 6, validUris?: readonly string[] | null): string {
  const text = pyStrip(raw === null || raw === undefined ? '' : String(raw));
  if (!text || text.toUpperCase() === NO_RELEVANT_MEMORY) return '';
  const allowed = validUris ? new Set(validUris.map((uri) => pyStrip(String(uri))).filter((uri) => uri)) : null;
  const bullets: string[] = [];
  for (const line of pySplitLines(text)) {
    const cleaned = pyStrip(line);
    if (!BULLET.test(cleaned)) continue;
    const bullet = pyRstrip(cutCodePoints(cleaned.replace(BULLET, '- '), MAX_BULLET_CHARS));
    const cited = citedUris(bullet);
    if (cited.length === 0 || (allowed && cited.some((uri) => !allowed.has(uri)))) continue;
    bullets.push(bullet);
    if (bullets.length >= Math.max(1, maxBullets)) break;
  }
  return bullets.length ? `${DIGEST_HEADER}\n${bullets.join('\n')}` : '';
}
