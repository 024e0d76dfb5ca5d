import { isPlainObject, pyInt } from '../text/py-coerce';

export const LEDGER_VERSION = 1;
export const MAX_LEDGER_URIS = 500;

/** `stats.dedup.status` (docs/contract.md#stats). */
export type DedupStatus = 'off' | 'new' | 'ok' | 'write_failed';

/**
 * The stored ledger (docs/contract.md#dedup-ledger): `entries` maps URI → `{turn, detail}`; stored records are kept
 * raw.
 */
export interface LedgerDocument {
  version: number;
  updated_turn: number;
  entries: Record<string, unknown>;
}

/** A ledger as loaded: its raw JSON object and whether it was found and readable. */
export interface LoadedLedger {
  status: 'new' | 'ok';
  data: Record<string, unknown>;
}

/**
 * Parse a stored ledger (docs/contract.md#dedup-ledger): null (absent) or invalid JSON → `new`; a non-object JSON →
 * `ok`, empty.
 */
export function parseLedger(raw: string | null | undefined): LoadedLedger {
  if (raw === null || raw === undefined) return { status: 'new', data: {} };
  if (raw === '') return { status: 'ok', data: {} };
  try {
    const parsed: unknown = JSON.parse(raw);
    return { status: 'ok', data: isPlainObject(parsed) ? parsed : {} };
  } catch {
    return { status: 'new', data: {} };
  }
}

/** Turn a record was written at: `int(record.turn)` (missing → 0), or null when unusable. */
export function recordTurn(record: unknown): number | null {
  if (!isPlainObject(record)) return null;
  if (!Object.prototype.hasOwnProperty.call(record, 'turn')) return 0;
  return pyInt(record['turn']);
}

/** The turn clock (docs/contract.md#dedup-ledger): `max(total_message_count or 0, live message count)`. */
export function turnClock(totalMessageCount: unknown, liveMessages: number): number {
  const total = totalMessageCount === null || totalMessageCount === undefined ? 0 : (pyInt(totalMessageCount) ?? 0);
  return Math.max(total, liveMessages);
}

/** The ledger's `entries` object (URI → record), or {} when it is missing or not an object. */
export function entriesOf(data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const entries = data['entries'];
  return isPlainObject(entries) ? entries : {};
}

/**
 * URIs cooled at `turn` (docs/contract.md#dedup-ledger): usable turn `t ≤ turn`, `turn − t < dedupTurns`, detail ≠
 * "uri".
 * Records ahead of the clock (archive rotation) count as expired.
 */
export function cooledUris(data: Readonly<Record<string, unknown>>, turn: number, dedupTurns: number): string[] {
  const window = Math.max(0, Math.trunc(dedupTurns));
  const cooled: string[] = [];
  for (const [uri, record] of Object.entries(entriesOf(data))) {
    const served = recordTurn(record);
    if (served === null || served > turn) continue;
    if ((record as Record<string, unknown>)['detail'] === 'uri') continue;
    if (turn - served < window) cooled.push(uri);
  }
  return cooled;
}

/**
 * Record served entries at `turn` and prune (docs/contract.md#dedup-ledger): keep usable turns in `[turn −
 * 4·dedupTurns, turn]`,
 * then at most the 500 most recent. Bare-URI entries are recorded too (they just never cool).
 */
export function recordServed(
  data: Readonly<Record<string, unknown>>,
  served: ReadonlyArray<{ uri: string; detail: string }>,
  turn: number,
  dedupTurns: number,
): LedgerDocument {
  const stored: Record<string, unknown> = { ...entriesOf(data) };
  for (const entry of served) {
    if (entry.uri) stored[entry.uri] = { turn, detail: entry.detail };
  }
  const keepFrom = turn - Math.max(0, Math.trunc(dedupTurns)) * 4;
  let kept = Object.entries(stored)
    .map(([uri, record]) => ({ uri, record, at: recordTurn(record) }))
    .filter(
      (item): item is { uri: string; record: unknown; at: number } =>
        item.at !== null && item.at >= keepFrom && item.at <= turn,
    );
  if (kept.length > MAX_LEDGER_URIS) kept = [...kept].sort((a, b) => b.at - a.at).slice(0, MAX_LEDGER_URIS);
  return {
    version: LEDGER_VERSION,
    updated_turn: turn,
    entries: Object.fromEntries(kept.map((item) => [item.uri, item.record])),
  };
}
