import type { FastifyInstance } from 'fastify';

/**
 * Which methods a concrete path is routed for, so a known path asked with the wrong method answers
 * 405 (docs/fs-and-mcp.md). Fastify's `hasRoute` compares route *patterns*, so `/sessions/s1` never
 * matched `/sessions/:sessionId`; this table learns every route from the `onRoute` hook and matches
 * the path against each pattern (compiled once, linear in the path).
 */
const TABLE = Symbol('muninn.routeMethods');

interface RouteEntry {
  method: string;
  pattern: RegExp;
}

type WithTable = FastifyInstance & { [TABLE]?: RouteEntry[] };

/** Starts recording routes; call before any route is registered (child contexts see the root's table). */
export function trackRouteMethods(fastify: FastifyInstance): void {
  const table: RouteEntry[] = [];
  (fastify as WithTable)[TABLE] = table;
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = compile(route.url ?? route.path);
    for (const method of methods) table.push({ method: method.toUpperCase(), pattern });
  });
}

/** Methods (among `candidates`) some route serves for `path`; [] when the table was never installed. */
export function routedMethods(fastify: FastifyInstance, path: string, candidates: readonly string[]): string[] {
  const table = (fastify as WithTable)[TABLE];
  if (!table) return [];
  return candidates.filter((m) => table.some((r) => r.method === m && r.pattern.test(path)));
}

/** A find-my-way pattern as a RegExp: `:param` (with or without its own regex) is one segment, `*` the rest. */
function compile(url: string): RegExp {
  const body = url
    .split('/')
    .map((seg) => {
      if (seg === '*') return '.*';
      if (seg.includes(':') && !seg.includes('::')) return '[^/]+';
      return seg.replace(/::/g, ':').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${body}$`);
}
