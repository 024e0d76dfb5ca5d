import { invalidArgument } from '../kernel.error';
import { pyTruthy } from '../text/py-coerce';

/** Fields only `mode="context"` accepts (docs/contract.md#context-only-fields); presence alone (even `null`) counts. */
export const CONTEXT_ONLY_FIELDS = [
  'query_expansion',
  'max_tokens',
  'quotas',
  'purpose',
  'detail',
  'dedup_turns',
  'exclude_uris',
  'peer_scope',
  'other_peer_penalty',
  'rewrite',
  'rewrite_max_bullets',
  'explain',
] as const;

/** Context-only fields present in a request body, sorted (docs/contract.md#cross-field-validation item 1). */
export function contextOnlyFieldsPresent(body: Readonly<Record<string, unknown>>): string[] {
  return CONTEXT_ONLY_FIELDS.filter((field) => Object.prototype.hasOwnProperty.call(body, field)).sort();
}

/**
 * The one context-or-list decision of `/search` (docs/contract.md#context-request): a context request is a body with
 * `mode:"context"` or carrying any context-only field, whatever `mode` says; the context schema then answers a bad
 * `mode` and the cross-field rules answer context-only fields in list mode. The route and the MCP `search` tool both
 * ask this.
 */
export function isContextRequest(body: unknown): body is Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const b = body as Record<string, unknown>;
  return b['mode'] === 'context' || contextOnlyFieldsPresent(b).length > 0;
}

/** The exact docs/contract.md#cross-field-validation message for context-only fields sent in list mode. */
export function modeMismatchMessage(fields: readonly string[]): string {
  return `${fields.join(', ')} require mode='context'; set mode='context' or drop these fields`;
}

/**
 * Cross-field checks of `/search` (docs/contract.md#cross-field-validation items 1-2): list mode (explicit or omitted)
 * rejects any
 * context-only field; context mode rejects a truthy `target_uri`. Throws INVALID_ARGUMENT.
 */
export function assertSearchModeFields(body: Readonly<Record<string, unknown>>): void {
  const mode = body['mode'] ?? 'list';
  if (mode === 'list') {
    const used = contextOnlyFieldsPresent(body);
    if (used.length) throw invalidArgument(modeMismatchMessage(used));
    return;
  }
  if (pyTruthy(body['target_uri'])) throw invalidArgument("target_uri is not supported in mode='context'");
}
