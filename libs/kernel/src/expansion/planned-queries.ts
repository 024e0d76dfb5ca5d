import { pyStrip } from '../text/py-text';

/** At most this many queries are searched per request, the original included (docs/contract.md#constants). */
export const MAX_PLANNED_QUERIES = 3;

/** `query_expansion` outcome reported in stats (docs/contract.md#query-expansion). */
export type ExpansionStatus = 'off' | 'used' | 'failed';

/**
 * Planned queries (docs/contract.md#query-expansion): the original first, then trimmed, non-empty, new planner queries,
 * 3 at most.
 */
export function plannedQueries(query: string, planned: readonly unknown[]): string[] {
  const queries = [query];
  for (const item of planned) {
    if (queries.length >= MAX_PLANNED_QUERIES) break;
    const text = item === null || item === undefined ? '' : pyStrip(String(item));
    if (text && !queries.includes(text)) queries.push(text);
  }
  return queries;
}
