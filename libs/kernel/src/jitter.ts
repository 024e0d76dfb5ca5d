/** A pause of about `ms` (±50%): work put back together does not all come back in the same instant. */
export function jittered(ms: number, random: () => number = Math.random): number {
  return Math.round(ms * (0.5 + random()));
}
