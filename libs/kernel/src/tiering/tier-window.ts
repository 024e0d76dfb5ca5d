import { pyStrip } from '../text/py-text';
import { Candidate } from './candidate';
import { Category, isFullBodyAbstractCategory } from './category';
import { PinnableTier, Tier, TIER_ORDER, tierRank } from './tier';

/** Tier each category is served at without a pin (docs/contract.md#tier-table). */
export const DEFAULT_TIER: Readonly<Record<Category, Tier>> = {
  events: 'overview',
  entities: 'abstract',
  preferences: 'abstract',
  experiences: 'abstract',
  resources: 'abstract',
  skills: 'abstract',
  memories: 'abstract',
};

// Only events deepen on leftover budget: their body is long enough for `# Summary` to compress,
// while resource/skill bodies are opt-in (size, credentials).
const DEPTH_CEILING: Readonly<Partial<Record<Category, Tier>>> = { events: 'full' };

/** Tier standing in for a missing or oversized abstract: overview for memories, else the bare URI. */
export function abstractSubstitute(candidate: Candidate): Tier {
  return isFullBodyAbstractCategory(candidate.category) ? 'overview' : 'uri';
}

/** Start tier before any deepening: directories at overview, else pin or default, with the substitute. */
export function startTier(candidate: Candidate, pin: PinnableTier | null): Tier {
  if (candidate.isDirectory) return 'overview';
  const tier = pin ?? DEFAULT_TIER[candidate.category];
  if (tier === 'abstract' && !pyStrip(candidate.abstract)) return abstractSubstitute(candidate);
  return tier;
}

/** `(start, ceiling)`: where a candidate starts and how far leftover budget may deepen it. */
export function tierWindow(candidate: Candidate, pin: PinnableTier | null): { start: Tier; ceiling: Tier } {
  const start = startTier(candidate, pin);
  if (pin !== null || candidate.isDirectory) return { start, ceiling: start };
  const ceiling = DEPTH_CEILING[candidate.category] ?? start;
  return { start, ceiling: tierRank(ceiling) > tierRank(start) ? ceiling : start };
}

/**
 * Floor-pass fallback order (docs/contract.md#planning): down the ladder, with overview tried right after a memory
 * abstract.
 */
export function tiersDownFrom(candidate: Candidate, start: Tier): Tier[] {
  const order = TIER_ORDER.slice(0, tierRank(start) + 1).reverse();
  if (start === 'abstract' && abstractSubstitute(candidate) === 'overview') order.splice(1, 0, 'overview');
  return order;
}
