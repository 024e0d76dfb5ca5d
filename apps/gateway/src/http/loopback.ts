/**
 * Loopback checks for dev mode (docs/limits-and-security.md, "Dev mode"). A browser page on another
 * site can reach a localhost server: either directly (its requests then carry a foreign `Origin`) or
 * through DNS rebinding (its requests then carry the attacker's host name in `Host`). Both are refused.
 */

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** A host name (no port) that can only ever mean this machine. */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '[::1]' || h === '::1') return true;
  return IPV4_LOOPBACK.test(h);
}

/** The `Host` header value names a loopback host (with or without a port). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host || host.length > 300) return false;
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return isLoopbackHostname(hostname);
}

/** The `Origin` header is absent (not a browser) or an http(s) page served from a loopback host. */
export function isLoopbackOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  if (origin.length > 300) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null" (sandboxed frames, file: pages)
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHostname(url.hostname);
}
