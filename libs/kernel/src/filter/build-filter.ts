import { ContextType } from '../identity/identity';
import { parseContextTypes } from './context-types';
import { FilterLimits } from './filter-limits';
import { andFilters, FilterLeaf, FilterNode, normalizeFilterTree } from './filter-node';
import { buildTagsFilter } from './search-tags';
import { normalizeTimeField, resolveTimeBounds } from './time-bound';

/** The request fields folded into one effective filter (docs/contract.md#filter). */
export interface FilterRequest {
  filter?: unknown;
  contextType?: unknown;
  tags?: unknown;
  since?: string | null;
  until?: string | null;
  timeField?: string | null;
  now: Date;
  /** Size and depth bounds of the caller's `filter` (configuration); the ceilings when absent. */
  limits?: FilterLimits;
}

/** `{op:'must', field:'context_type', conds}` AND-ed into `filter`; unchanged when no types are given. */
export function withContextType(filter: FilterNode | null, types: readonly ContextType[]): FilterNode | null {
  if (types.length === 0) return filter;
  return andFilters(filter, { op: 'must', field: 'context_type', conds: [...types] });
}

/** Fold caller filter, `context_type`, `since`/`until`/`time_field` and `tags` into one AND tree, or null. */
export function buildFilter(request: FilterRequest): FilterNode | null {
  const caller = normalizeFilterTree(request.filter, 'filter', request.limits);
  let merged = withContextType(caller, parseContextTypes(request.contextType));
  const bounds = resolveTimeBounds(request.since, request.until, request.now);
  if (bounds.since || bounds.until) {
    const range: FilterLeaf = { op: 'time_range', field: normalizeTimeField(request.timeField) };
    if (bounds.since) range['gte'] = bounds.since.toISOString();
    if (bounds.until) range['lte'] = bounds.until.toISOString();
    merged = andFilters(merged, range);
  }
  return andFilters(merged, buildTagsFilter(request.tags));
}
