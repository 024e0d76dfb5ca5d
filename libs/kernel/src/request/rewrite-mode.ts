import { invalidArgument } from '../kernel.error';

/** Requested digest rewrite: on, off, or on when a query planner is configured. */
export type RewriteMode = boolean | 'auto';

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/**
 * Lax parsing of `rewrite` (docs/contract.md#context-only-fields): booleans, 0/1, and yes/no/on/off/true/false/t/f/y/n
 * words, or "auto".
 */
export function parseRewrite(value: unknown): RewriteMode {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (value === 'auto') return 'auto';
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') {
    const word = value.toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  throw invalidArgument("rewrite: Input should be a valid boolean or 'auto'");
}
