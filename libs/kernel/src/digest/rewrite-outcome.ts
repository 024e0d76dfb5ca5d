import { RewriteMode } from '../request/rewrite-mode';
import { pyStrip } from '../text/py-text';
import { NO_RELEVANT_MEMORY, normalizeDigest } from './normalize-digest';

/** `stats.rewrite` (docs/contract.md#stats). */
export type RewriteStatus = 'off' | 'ok' | 'no_relevant' | 'failed' | 'timeout' | 'empty';

/** `stats.rewrite_usage`: this request's share of the model's token usage. */
export interface RewriteUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** Whether to rewrite (docs/contract.md#digest-rewrite): `true`, or `"auto"` with a query planner configured. */
export function rewriteEnabled(mode: RewriteMode, plannerConfigured: boolean): boolean {
  return mode === true || (mode === 'auto' && plannerConfigured);
}

/**
 * Classify a model answer (docs/contract.md#digest-rewrite): a non-empty digest is `ok`, exactly NO_RELEVANT_MEMORY is
 * `no_relevant`, else `failed`.
 */
export function classifyRewrite(
  raw: unknown,
  maxBullets: number,
  validUris: readonly string[],
): { digest: string; status: Extract<RewriteStatus, 'ok' | 'no_relevant' | 'failed'> } {
  const digest = normalizeDigest(raw, maxBullets, validUris);
  if (digest) return { digest, status: 'ok' };
  const text = pyStrip(raw === null || raw === undefined ? '' : String(raw));
  return { digest: '', status: text.toUpperCase() === NO_RELEVANT_MEMORY ? 'no_relevant' : 'failed' };
}
