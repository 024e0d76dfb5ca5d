import { invalidArgument } from '../kernel.error';
import { isPlainObject } from '../text/py-coerce';

/** Bounds on one metadata filter (see docs/limits-and-security.md#filters). */
export interface FilterLimits {
  /** Filter nodes plus the values in their `conds` lists. */
  maxNodes: number;
  /** Nesting levels of `and`/`or` groups, the root counting as 1. */
  maxDepth: number;
  /** Characters in one `regex` pattern. */
  maxPatternLength: number;
}

/**
 * The highest limits configuration may set. The SQL compiler checks them on every filter it gets, so it
 * stays safe whatever reaches it (the API edge applies the configured, lower limits first).
 */
export const FILTER_LIMIT_CEILINGS: Readonly<FilterLimits> = { maxNodes: 5000, maxDepth: 64, maxPatternLength: 4096 };

/**
 * Throws INVALID_ARGUMENT when `value` (a raw or normalised filter tree) has more nodes and values or
 * more nesting than `limits` allow. Iterative, and it stops at the first excess: the work is bounded
 * by the limits, not by the input.
 */
export function assertFilterWithinLimits(value: unknown, limits: FilterLimits, path = 'filter'): void {
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  let count = 0;
  const tooMany = () =>
    invalidArgument(`${path} has more than ${limits.maxNodes} nodes and values`, {
      field: path,
      limit: limits.maxNodes,
    });
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    count += 1;
    if (count > limits.maxNodes) throw tooMany();
    if (!isPlainObject(node)) continue;
    const conds = node['conds'];
    if (!Array.isArray(conds)) continue;
    const isGroup = node['op'] === 'and' || node['op'] === 'or';
    if (isGroup && depth + 1 > limits.maxDepth && conds.some(isPlainObject)) {
      throw invalidArgument(`${path} nests deeper than ${limits.maxDepth} levels`, {
        field: path,
        limit: limits.maxDepth,
      });
    }
    if (count + conds.length > limits.maxNodes) throw tooMany();
    for (const child of conds) {
      if (isGroup && isPlainObject(child)) stack.push({ node: child, depth: depth + 1 });
      else count += 1;
    }
  }
}

/** Limits no larger than the ceilings (a safety net for callers that pass configuration through). */
export function clampFilterLimits(limits: FilterLimits): FilterLimits {
  return {
    maxNodes: Math.min(limits.maxNodes, FILTER_LIMIT_CEILINGS.maxNodes),
    maxDepth: Math.min(limits.maxDepth, FILTER_LIMIT_CEILINGS.maxDepth),
    maxPatternLength: Math.min(limits.maxPatternLength, FILTER_LIMIT_CEILINGS.maxPatternLength),
  };
}
