import { uriSegments } from '../uri/uri-path';

// The walk order of a tree listing (docs/fs-and-mcp.md, "Tree"): depth-first pre-order, at each level
// directories before files, each group by name. Entries come from the store in URI order; this sorts
// them once instead of walking directory by directory, so the cost is one query plus n log n.

export interface TreeEntryIn {
  uri: string;
  kind: 'file' | 'directory';
}

export interface TreeOptions {
  /** Entries whose path relative to the base has more segments than this are left out. */
  levelLimit: number;
  /** Visible entries at most (after hidden files are dropped). */
  nodeLimit: number;
  /** Keep files whose name starts with `.`. Directories are never hidden. */
  showHidden: boolean;
}

/** `rel` is the path below the base, without a leading or trailing slash. */
export type TreeEntryOut<T> = T & { rel: string; depth: number };

/** Orders and cuts `entries` (all strictly below `base`); `truncated` when `nodeLimit` cut something. */
export function treeOrder<T extends TreeEntryIn>(
  base: string,
  entries: T[],
  opts: TreeOptions,
): { entries: TreeEntryOut<T>[]; truncated: boolean } {
  const baseDepth = uriSegments(base).length;
  const keyed = entries
    .map((e) => ({ e, segs: uriSegments(e.uri).slice(baseDepth) }))
    .filter(({ segs }) => segs.length > 0 && segs.length <= opts.levelLimit)
    .filter(({ e, segs }) => opts.showHidden || e.kind === 'directory' || !segs[segs.length - 1]!.startsWith('.'));
  keyed.sort((a, b) => comparePaths(a.segs, a.e.kind, b.segs, b.e.kind));
  const limit = Math.max(0, opts.nodeLimit);
  const out = keyed.slice(0, limit).map(({ e, segs }) => ({ ...e, rel: segs.join('/'), depth: segs.length }));
  return { entries: out, truncated: keyed.length > limit };
}

function comparePaths(a: string[], aKind: string, b: string[], bKind: string): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    if (a[k] === b[k]) continue;
    // Segment k is a directory when more segments follow it, else it is the entry itself.
    const aDir = k < a.length - 1 || aKind === 'directory';
    const bDir = k < b.length - 1 || bKind === 'directory';
    if (aDir !== bDir) return aDir ? -1 : 1;
    return a[k]! < b[k]! ? -1 : 1;
  }
  return a.length - b.length; // an ancestor comes before what lies in it
}
