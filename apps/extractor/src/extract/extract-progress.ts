import { ProposedMemory } from '@app/kernel';

/** One window the model answered: what it proposed and what the call cost. */
export interface AnsweredWindow {
  memories: ProposedMemory[];
  overview: string;
  abstract: string;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
}

/**
 * What a retried extraction resumes from (docs/sessions.md, "A provider that fails for a while"): the
 * windows the model answered, each with the number of messages it held, so a job run again after a
 * transient provider failure (or a store failure while completing) does not pay for them twice.
 */
export interface ExtractProgress {
  /** Messages in each answered window: the archive's cut, which the resumed run must share. */
  counts: number[];
  windows: AnsweredWindow[];
}

/** Where one extraction keeps its progress (the task's row). */
export interface ExtractProgressStore {
  load(): Promise<unknown>;
  save(progress: ExtractProgress): Promise<void>;
}

/**
 * The saved windows this run can resume from: the leading ones cut as this run cuts the archive (a
 * changed prompt size cuts it otherwise, and those windows are asked again). Anything that is not a
 * progress record starts afresh.
 */
export function resumableWindows(saved: unknown, counts: number[]): AnsweredWindow[] {
  const p = saved as Partial<ExtractProgress> | null;
  if (!p || !Array.isArray(p.counts) || !Array.isArray(p.windows)) return [];
  const kept: AnsweredWindow[] = [];
  for (const [i, w] of p.windows.entries()) {
    if (i >= counts.length || p.counts[i] !== counts[i] || !isAnswered(w)) break;
    kept.push(w);
  }
  return kept;
}

function isAnswered(w: unknown): w is AnsweredWindow {
  const a = w as Partial<AnsweredWindow> | null;
  return !!a && Array.isArray(a.memories) && typeof a.overview === 'string' && typeof a.abstract === 'string';
}

/**
 * A transient provider failure (`LlmError.transient`: 408, 409, 429, 5xx, no connection) on an attempt
 * that is not the job's last: the attempt fails and the queue runs the job again after `retryDelayMs`
 * (its backoff reads it, libs/queue/src/job-options.ts), resuming at the window that failed.
 */
export class ModelRetryLater extends Error {
  override readonly name = 'ModelRetryLater';

  constructor(
    message: string,
    readonly retryDelayMs: number,
  ) {
    super(message);
  }
}
