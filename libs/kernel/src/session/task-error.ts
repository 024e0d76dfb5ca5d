const SECRET = /(sk-|cr_|ghp_|ntn_|xox[baprs]-|Bearer )[A-Za-z0-9._~+/=-]+/g;
const MAX = 500;

/** A task's error text as served: secrets after known key prefixes redacted, cut at 500 characters. */
export function sanitiseTaskError(text: string): string {
  const clean = text.replace(SECRET, (_m, prefix: string) => `${prefix}[REDACTED]`);
  return clean.length > MAX ? `${clean.slice(0, MAX)}...[truncated]` : clean;
}
