import { cutCodePoints } from '../text/py-text';

export const MAX_RETRIEVAL_ERRORS = 5;
const MAX_ERROR_CHARS = 200;

/** A failed retrieval call as reported by the worker: the exception class name and its message. */
export interface RetrievalFailure {
  name: string;
  message: string;
}

/** `"<Name>: <message>"` cut to 200 characters (docs/contract.md#stats). */
export function formatRetrievalError(failure: RetrievalFailure): string {
  return cutCodePoints(`${failure.name}: ${failure.message}`, MAX_ERROR_CHARS);
}

/**
 * The `stats.retrieval_errors` value (docs/contract.md#stats): the first five search failures, plus the assembler's
 * line when it failed, each ≤200 chars; null when nothing failed.
 */
export function capRetrievalErrors(lines: readonly string[], assembleError: string | null = null): string[] | null {
  const all = [...lines.slice(0, MAX_RETRIEVAL_ERRORS), ...(assembleError === null ? [] : [assembleError])];
  if (all.length === 0) return null;
  return all.map((line) => cutCodePoints(line, MAX_ERROR_CHARS));
}
