import { entriesOf } from '../ledger/recall-ledger';
import { Candidate } from '../tiering/candidate';
import { Tier } from '../tiering/tier';

/**
 * Most entries of earlier turns a block is checked against (docs/context.md, "Across turns"): the cooled
 * hits of this request's own searches, so never more than its over-fetch; the cap keeps the job bounded.
 */
export const MAX_SEEN = 50;

/** A hit the session's ledger cooled, with the tier it was served at then: the agent already holds that text. */
export interface SeenEntry {
  candidate: Candidate;
  detail: Exclude<Tier, 'uri'>;
}

const TEXT_TIERS: ReadonlySet<string> = new Set(['abstract', 'overview', 'full']);

/**
 * The cooled hits among `excluded` (the hits this request's searches found and the ledger cooled), each with the
 * tier the ledger recorded (`entries[uri].detail`; unknown: `abstract`, the least it can have been), best first.
 */
export function seenEntries(
  excluded: readonly Candidate[],
  cooled: readonly string[],
  ledger: Readonly<Record<string, unknown>>,
): SeenEntry[] {
  const cooledSet = new Set(cooled);
  const records = entriesOf(ledger);
  const out: SeenEntry[] = [];
  for (const candidate of excluded) {
    const uri = cooledSet.has(candidate.baseUri)
      ? candidate.baseUri
      : cooledSet.has(candidate.uri)
        ? candidate.uri
        : null;
    if (uri === null) continue;
    const detail = (records[uri] as Record<string, unknown> | undefined)?.['detail'];
    out.push({
      candidate,
      detail: typeof detail === 'string' && TEXT_TIERS.has(detail) ? (detail as SeenEntry['detail']) : 'abstract',
    });
    if (out.length >= MAX_SEEN) break;
  }
  return out;
}
