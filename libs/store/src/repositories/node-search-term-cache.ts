/**
 * Recently counted document frequencies, per identity scope and term, kept for a short while: IDF moves
 * slowly, and counting a common term is the most expensive part of weighting a query. Least recently
 * used entries go first once `max` is reached.
 */
export class TermStatsCache<V = number> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly max = 50_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (this.now() - e.at > this.ttlMs) return undefined;
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at: this.now() });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
}
