import type { FastifyRequest } from 'fastify';

/**
 * The route a request reached: the router's pattern when it matched one (`/mcp`,
 * `/api/v1/sessions/:session_id/messages`), else the path as sent. Every decision by route (the MCP
 * batch bound and charge, the MCP lanes, the import's body type and limit, route-scoped field bounds)
 * reads this, not `req.url`: the router decodes a path's escapes before matching, so `POST /%6dcp`
 * reaches the MCP controller while its `req.url` still says `/%6dcp` (docs/limits-and-security.md,
 * "Request gate").
 */
export function routeOf(req: Pick<FastifyRequest, 'url' | 'routeOptions'>): string {
  return req.routeOptions?.url ?? req.url.split('?', 1)[0]!;
}
