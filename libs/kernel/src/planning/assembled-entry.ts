import { Candidate, Origin } from '../tiering/candidate';
import { Category } from '../tiering/category';
import { Tier } from '../tiering/tier';

/** One served context entry; `tokens` is the estimate of its whole rendered element. */
export interface AssembledEntry {
  uri: string;
  category: Category;
  /** The raw retrieval score (not the penalised ranking score). */
  score: number;
  detail: Tier;
  text: string;
  origin: Origin;
  tokens: number;
}

/** Wire shape of an entry (docs/contract.md#entries), keys in contract order. */
export interface EntryJson {
  uri: string;
  category: Category;
  score: number;
  detail: Tier;
  text: string;
  origin?: Origin;
}

/** The entry a candidate becomes at a given tier (tokens left for the caller to fill). */
export function entryFor(candidate: Candidate, detail: Tier, text: string): AssembledEntry {
  return {
    uri: candidate.baseUri,
    category: candidate.category,
    score: candidate.score,
    detail,
    text,
    origin: candidate.origin,
    tokens: 0,
  };
}

/** Serialise an entry for `result.entries` (docs/contract.md#entries): uri, category, score, detail, text, origin. */
export function entryToJson(entry: AssembledEntry): EntryJson {
  const json: EntryJson = {
    uri: entry.uri,
    category: entry.category,
    score: entry.score,
    detail: entry.detail,
    text: entry.text,
  };
  if (entry.origin) json.origin = entry.origin;
  return json;
}
