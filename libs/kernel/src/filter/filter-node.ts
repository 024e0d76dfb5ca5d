import { invalidArgument } from '../kernel.error';
import { isPlainObject } from '../text/py-coerce';
import { assertFilterWithinLimits, FILTER_LIMIT_CEILINGS, FilterLimits } from './filter-limits';

/** Operators of the metadata filter DSL (docs/contract.md#filter) that the store understands. */
export const FILTER_OPS = [
  'and',
  'or',
  'must',
  'must_not',
  'prefix',
  'contains',
  'regex',
  'range',
  'range_out',
  'time_range',
] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** `and`/`or` over sub-filters. */
export interface FilterGroup {
  op: 'and' | 'or';
  conds: FilterNode[];
}

/** A field predicate; `conds` for value ops, bounds (`gte`, `lte`, …) for range ops. */
export interface FilterLeaf {
  op: Exclude<FilterOp, 'and' | 'or'>;
  field: string;
  [key: string]: unknown;
}

export type FilterNode = FilterGroup | FilterLeaf;

const GROUP_OPS = new Set(['and', 'or']);
const OPS = new Set<string>(FILTER_OPS);

/** AND two filters, flattening `and` nodes on either side; null stands for "no filter". */
export function andFilters(left: FilterNode | null, right: FilterNode | null): FilterNode | null {
  if (!left) return right;
  if (!right) return left;
  const conds: FilterNode[] = [];
  for (const node of [left, right]) {
    if (node.op === 'and') conds.push(...(node as FilterGroup).conds);
    else conds.push(node);
  }
  return { op: 'and', conds };
}

/**
 * Validate a caller-supplied filter tree and flatten nested `and`s; `{}`/null → null. Size and depth are
 * checked first (iteratively), so the recursion below is bounded by `limits.maxDepth`.
 */
export function normalizeFilterTree(
  value: unknown,
  path = 'filter',
  limits: FilterLimits = FILTER_LIMIT_CEILINGS,
): FilterNode | null {
  if (value === null || value === undefined) return null;
  if (path === 'filter') assertFilterWithinLimits(value, limits, path);
  if (!isPlainObject(value)) throw invalidArgument(`${path} must be an object`, { field: `${path}` });
  if (path === 'filter' && Object.keys(value).length === 0) return null;
  const op = value['op'];
  if (typeof op !== 'string' || !OPS.has(op)) {
    throw invalidArgument(`${path}.op must be one of: ${FILTER_OPS.join(', ')}`, { field: `${path}.op` });
  }
  if (GROUP_OPS.has(op)) {
    const conds = value['conds'];
    if (!Array.isArray(conds))
      throw invalidArgument(`${path}.conds must be a list of filters`, { field: `${path}.conds` });
    const children = conds.map((child: unknown, index) => {
      const node = normalizeFilterTree(child, `${path}.conds[${index}]`, limits);
      if (!node)
        throw invalidArgument(`${path}.conds[${index}] must be an object`, { field: `${path}.conds[${index}]` });
      return node;
    });
    const flat =
      op === 'and'
        ? children.flatMap((child) => (child.op === 'and' ? (child as FilterGroup).conds : [child]))
        : children;
    return { op: op as FilterGroup['op'], conds: flat };
  }
  if (typeof value['field'] !== 'string' || value['field'] === '') {
    throw invalidArgument(`${path}.field must be a non-empty string`, { field: `${path}.field` });
  }
  return { ...value } as FilterLeaf;
}
