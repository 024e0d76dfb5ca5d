import { estimateTokens } from '../budget/token-estimate';
import { AssembledEntry } from '../planning/assembled-entry';
import { PY_WS } from '../text/py-text';
import { formatScore } from './format-score';

type Renderable = Pick<AssembledEntry, 'uri' | 'category' | 'score' | 'detail' | 'text'>;

// `<` + optional `/` + `memory` followed by whitespace, `/` or `>`, in any case (docs/contract.md#rendered-block).
const ENVELOPE_TAG = new RegExp(`<(/?)memory(?=[${PY_WS}/>])`, 'gi');

/** Escape an attribute value: `&`, `"` and `<` only (docs/contract.md#rendered-block). */
export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Defuse forged envelope tags in a body: `<memory ` → `<\memory `, `</Memory>` → `<\/memory>`. */
export function neutraliseEnvelope(body: string): string {
  return body.replace(ENVELOPE_TAG, '<\\$1memory');
}

/** One `<memory …>` element, byte-exact (docs/contract.md#rendered-block); self-closing when the entry has no text. */
export function renderEntry(entry: Renderable): string {
  const head =
    `<memory uri="${escapeAttribute(entry.uri)}" type="${escapeAttribute(entry.category)}"` +
    ` score="${formatScore(entry.score)}" detail="${entry.detail}"`;
  if (!entry.text) return `${head} />`;
  return `${head}>\n${neutraliseEnvelope(entry.text)}\n</memory>`;
}

/** The `rendered` block: elements joined by a single newline, no wrapper. */
export function renderContext(entries: readonly Renderable[]): string {
  return entries.map(renderEntry).join('\n');
}

/** Token cost of one rendered element, envelope included (docs/contract.md#token-estimate). */
export function entryTokens(entry: Renderable): number {
  return estimateTokens(renderEntry(entry));
}
