import {
  assertFilterWithinLimits,
  clampFilterLimits,
  FILTER_LIMIT_CEILINGS,
  FilterLeaf,
  FilterLimits,
  FilterNode,
  invalidArgument,
  isPlainObject,
  parseTimeBound,
  toSafeRegex,
} from '@app/kernel';

/** A parameterised SQL predicate; placeholders are numbered from the `first` the caller gave. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

export interface FilterSqlOptions {
  /** Number of the first placeholder this fragment may use. */
  first: number;
  /**
   * The tier of the hit row being tested: a file is 2, a directory is matched at 0 and 1
   * (docs/contract.md#tiers-and-sidecars).
   */
  level: number;
  /** Table alias of `nodes` in the surrounding query. */
  alias?: string;
  /** Reference time for relative bounds (`7d`) inside `time_range`. */
  now?: Date;
  /** Size, depth and pattern bounds (configuration); never above FILTER_LIMIT_CEILINGS. */
  limits?: FilterLimits;
}

type FieldType = 'text' | 'tags' | 'time' | 'level';

// The searchable metadata. Anything else is a client error (400), never a column name from input.
const FIELDS: Record<string, { type: FieldType; column?: string }> = {
  uri: { type: 'text', column: 'uri' },
  parent_uri: { type: 'text', column: 'parent_uri' },
  context_type: { type: 'text', column: 'context_type' },
  abstract: { type: 'text', column: 'abstract' },
  tags: { type: 'tags', column: 'tags' },
  search_tags: { type: 'tags', column: 'tags' },
  created_at: { type: 'time', column: 'created_at' },
  updated_at: { type: 'time', column: 'updated_at' },
  level: { type: 'level' },
};

export const FILTER_FIELDS = Object.keys(FIELDS);

/**
 * Translates a filter tree (docs/contract.md#filter) into a SQL predicate over `nodes` for hit rows of one tier.
 * Values only ever travel as parameters; `level` is decided here, since it is the tier of the hit
 * row rather than a column. Unknown fields, operators or malformed values are INVALID_ARGUMENT.
 */
export function filterToSql(node: FilterNode, opts: FilterSqlOptions): SqlFragment {
  const limits = clampFilterLimits(opts.limits ?? FILTER_LIMIT_CEILINGS);
  // Bounded before the recursive translation below: its depth and output size follow from these limits.
  assertFilterWithinLimits(node, limits);
  const params: unknown[] = [];
  const ctx = {
    level: opts.level,
    alias: opts.alias ? `${opts.alias}.` : '',
    now: opts.now ?? new Date(),
    maxPatternLength: limits.maxPatternLength,
  };
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${opts.first + params.length - 1}`;
  };
  return { sql: translate(node, 'filter', ctx, bind), params };
}

/** Throws INVALID_ARGUMENT when `filter` would be rejected by the search (checked before enqueueing). */
export function assertSearchableFilter(filter: FilterNode | null, now = new Date(), limits?: FilterLimits): void {
  if (filter) filterToSql(filter, { first: 1, level: 2, now, limits });
}

type Ctx = { level: number; alias: string; now: Date; maxPatternLength: number };
type Bind = (value: unknown) => string;

function translate(node: FilterNode, path: string, ctx: Ctx, bind: Bind): string {
  if (!isPlainObject(node as unknown)) throw invalidArgument(`${path} must be an object`, { field: `${path}` });
  if (node.op === 'and' || node.op === 'or') {
    const conds = (node as { conds?: unknown }).conds;
    if (!Array.isArray(conds))
      throw invalidArgument(`${path}.conds must be a list of filters`, { field: `${path}.conds` });
    if (conds.length === 0) return node.op === 'and' ? 'TRUE' : 'FALSE';
    const parts = conds.map((c, i) => translate(c as FilterNode, `${path}.conds[${i}]`, ctx, bind));
    return `(${parts.join(node.op === 'and' ? ' AND ' : ' OR ')})`;
  }
  const leaf = node as FilterLeaf;
  // Own keys only: a field named `constructor` or `__proto__` must not find Object.prototype's members.
  const spec = typeof leaf.field === 'string' && Object.hasOwn(FIELDS, leaf.field) ? FIELDS[leaf.field] : undefined;
  if (!spec) {
    throw invalidArgument(
      `${path}.field '${String(leaf.field)}' is not searchable; use one of: ${FILTER_FIELDS.join(', ')}`,
      { field: `${path}.field` },
    );
  }
  switch (spec.type) {
    case 'level':
      return levelLeaf(leaf, path, ctx.level) ? 'TRUE' : 'FALSE';
    case 'text':
      return textLeaf(leaf, path, `${ctx.alias}${spec.column}`, bind, ctx.maxPatternLength);
    case 'tags':
      return tagsLeaf(leaf, path, `${ctx.alias}${spec.column}`, bind);
    case 'time':
      return timeLeaf(leaf, path, `${ctx.alias}${spec.column}`, ctx.now, bind);
  }
}

function textLeaf(leaf: FilterLeaf, path: string, column: string, bind: Bind, maxPatternLength: number): string {
  switch (leaf.op) {
    case 'must':
      return `coalesce(${column} = ANY(${bind(strings(leaf, path))}::text[]), FALSE)`;
    case 'must_not':
      return `NOT coalesce(${column} = ANY(${bind(strings(leaf, path))}::text[]), FALSE)`;
    case 'prefix':
      return `coalesce(${column} LIKE ${bind(`${escapeLike(operand(leaf, path, 'prefix'))}%`)}, FALSE)`;
    case 'contains':
      return `coalesce(strpos(${column}, ${bind(operand(leaf, path, 'substring'))}) > 0, FALSE)`;
    case 'regex':
      return `coalesce(${column} ~ ${bind(pattern(leaf, path, maxPatternLength))}, FALSE)`;
    default:
      throw unsupported(leaf, path);
  }
}

// Tags are matched case-insensitively: search tags are normalised to lower case (docs/contract.md#find-request) while
// stored tags keep the writer's spelling.
function tagsLeaf(leaf: FilterLeaf, path: string, column: string, bind: Bind): string {
  const any = (predicate: string) => `EXISTS (SELECT 1 FROM unnest(${column}) AS tag(v) WHERE ${predicate})`;
  switch (leaf.op) {
    case 'must':
      return any(`lower(tag.v) = ANY(${bind(strings(leaf, path).map((s) => s.toLowerCase()))}::text[])`);
    case 'must_not':
      return `NOT ${any(`lower(tag.v) = ANY(${bind(strings(leaf, path).map((s) => s.toLowerCase()))}::text[])`)}`;
    case 'prefix':
      return any(`lower(tag.v) LIKE ${bind(`${escapeLike(operand(leaf, path, 'prefix').toLowerCase())}%`)}`);
    case 'contains':
      return any(`strpos(lower(tag.v), ${bind(operand(leaf, path, 'substring').toLowerCase())}) > 0`);
    default:
      throw unsupported(leaf, path);
  }
}

const BOUNDS = { gte: '>=', gt: '>', lte: '<=', lt: '<' } as const;

function timeLeaf(leaf: FilterLeaf, path: string, column: string, now: Date, bind: Bind): string {
  if (leaf.op !== 'range' && leaf.op !== 'range_out' && leaf.op !== 'time_range') throw unsupported(leaf, path);
  const parts = boundsOf(leaf, path).map(([key, value]) => {
    if (typeof value !== 'string')
      throw invalidArgument(`${path}.${key} must be an ISO-8601 date or time string`, { field: `${path}.${key}` });
    const at = parseTimeBound(value, now, key === 'lte' || key === 'lt', `${path}.${key}`);
    return `${column} ${BOUNDS[key]} ${bind(at.toISOString())}::timestamptz`;
  });
  const inside = `(${parts.join(' AND ')})`;
  return leaf.op === 'range_out' ? `NOT ${inside}` : inside;
}

function levelLeaf(leaf: FilterLeaf, path: string, level: number): boolean {
  switch (leaf.op) {
    case 'must':
    case 'must_not': {
      const conds = leaf['conds'];
      if (!Array.isArray(conds) || conds.some((c) => !Number.isInteger(typeof c === 'string' ? Number(c) : c))) {
        throw invalidArgument(`${path}.conds must be a list of integer levels`, { field: `${path}.conds` });
      }
      const hit = conds.map(Number).includes(level);
      return leaf.op === 'must' ? hit : !hit;
    }
    case 'range':
    case 'range_out': {
      const inside = boundsOf(leaf, path).every(([key, value]) => {
        if (typeof value !== 'number' || !Number.isFinite(value))
          throw invalidArgument(`${path}.${key} must be a number`, { field: `${path}.${key}` });
        return key === 'gte'
          ? level >= value
          : key === 'gt'
            ? level > value
            : key === 'lte'
              ? level <= value
              : level < value;
      });
      return leaf.op === 'range' ? inside : !inside;
    }
    default:
      throw unsupported(leaf, path);
  }
}

function boundsOf(leaf: FilterLeaf, path: string): [keyof typeof BOUNDS, unknown][] {
  const found = (Object.keys(BOUNDS) as (keyof typeof BOUNDS)[])
    .filter((key) => leaf[key] !== undefined && leaf[key] !== null)
    .map((key) => [key, leaf[key]] as [keyof typeof BOUNDS, unknown]);
  if (found.length === 0) throw invalidArgument(`${path} needs at least one of gte, gt, lte, lt`, { field: `${path}` });
  return found;
}

function strings(leaf: FilterLeaf, path: string): string[] {
  const conds = leaf['conds'];
  if (!Array.isArray(conds) || conds.some((c) => typeof c !== 'string')) {
    throw invalidArgument(`${path}.conds must be a list of strings`, { field: `${path}.conds` });
  }
  return conds as string[];
}

/** The operand of `prefix`/`contains`: its named key, else a one-item `conds`. */
function operand(leaf: FilterLeaf, path: string, key: 'prefix' | 'substring'): string {
  const value =
    leaf[key] ?? (Array.isArray(leaf['conds']) && leaf['conds'].length === 1 ? leaf['conds'][0] : undefined);
  if (typeof value !== 'string') throw invalidArgument(`${path}.${key} must be a string`, { field: `${path}.${key}` });
  return value;
}

/** The `regex` operand, checked against the safe subset and spelled for PostgreSQL. */
function pattern(leaf: FilterLeaf, path: string, maxLength: number): string {
  const value = operand({ ...leaf, substring: leaf['pattern'] ?? leaf['substring'] }, path, 'substring');
  return toSafeRegex(value, `${path}.pattern`, maxLength);
}

function unsupported(leaf: FilterLeaf, path: string) {
  return invalidArgument(`${path}.op '${leaf.op}' is not supported on field '${leaf.field}'`, { field: `${path}.op` });
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
