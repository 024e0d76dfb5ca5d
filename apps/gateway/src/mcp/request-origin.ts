import type { FastifyRequest } from 'fastify';

const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The origin a client reached this server at, for links the MCP tools hand out when
 * MUNINN_PUBLIC_BASE_URL is unset (the reference's order: X-Forwarded-Host with X-Forwarded-Proto,
 * default https; then Host over http; then the socket's own address). Header values that are not a
 * plain host[:port] are ignored, so nothing else can be spliced into the link.
 */
export function requestOrigin(req: FastifyRequest): string {
  const first = (name: string) => {
    const v = req.headers[name];
    return (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim() ?? '';
  };
  const forwarded = first('x-forwarded-host');
  if (HOST.test(forwarded)) {
    const proto = first('x-forwarded-proto').toLowerCase();
    return `${proto === 'http' ? 'http' : 'https'}://${forwarded}`;
  }
  const host = first('host');
  if (HOST.test(host)) return `http://${host}`;
  const addr = req.socket.localAddress ?? '127.0.0.1';
  return `http://${addr.includes(':') ? `[${addr}]` : addr}:${req.socket.localPort ?? 80}`;
}
