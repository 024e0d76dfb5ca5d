/**
 * What an index job does with its outbox entry before any work (docs/architecture.md, "A job that kills its
 * worker"): `run` it beside other index jobs; `split` it into one entry per file, so the files that do not take
 * the worker down are indexed without the one that does; run a single file `alone`, with no other index job in
 * its process, so that a death is its own and not a neighbour's; or `hold` it for a while once it died alone.
 */
export type IndexRunVerdict = 'run' | 'split' | 'alone' | 'hold';

/** An entry's runs that began and never ended (each died with its worker), and how many files it names. */
export interface IndexRunRecord {
  /** Runs of any kind that died. */
  crashes: number;
  /** Of those, runs made alone in their process. */
  aloneCrashes: number;
  files: number;
}

/**
 * The verdict for an entry, given the configured limit of deaths beside other jobs. A worker's death stalls
 * every job it ran, so a death beside others may be a neighbour's fault: it only sends a batch to be split, or a
 * single file to run alone; only a death alone sets a file aside.
 */
export function indexRunVerdict(r: IndexRunRecord, limit: number): IndexRunVerdict {
  if (!(r.crashes >= limit)) return 'run';
  if (r.files > 1) return 'split';
  return r.aloneCrashes >= 1 ? 'hold' : 'alone';
}
