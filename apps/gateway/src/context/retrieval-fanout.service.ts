import { Injectable } from '@nestjs/common';
import { FindJob, FindResult } from '@app/contracts';
import {
  callAbstractChars,
  FilterNode,
  Identity,
  KernelError,
  KernelErrorCode,
  openContext,
  resolveFindTargets,
  RetrievalCall,
  RetrievalOutcome,
  withContextType,
} from '@app/kernel';
import { decodeJobFailure, FindClient } from '@app/queue';
import { RequestStages } from '../http/request-stages';

export interface FanoutInput {
  identity: Identity;
  calls: RetrievalCall[];
  filter: FilterNode | null;
  scoreThreshold: number | null;
  /** Absolute time (ms since epoch) by which every call must have answered. */
  deadline: number;
  /** Records each job's stages (and strips them from its result). */
  stages: RequestStages;
}

/**
 * Runs the planned `find` calls as one batch job on the retriever queue under one deadline
 * (docs/architecture.md, "Performance"): the worker answers each call on its own. A call that fails,
 * or every call when the job fails or misses the deadline, becomes an outcome with an error
 * (→ `stats.retrieval_errors`).
 */
@Injectable()
export class RetrievalFanoutService {
  constructor(private readonly finder: FindClient) {}

  async run(input: FanoutInput): Promise<RetrievalOutcome[]> {
    if (input.calls.length === 0) return [];
    const jobs = input.calls.map((call) => findJobOf(input, call));
    let answers: (FindResult | unknown)[];
    try {
      const batch = await input.stages.job('find', () => this.finder.batch(jobs, input.deadline - Date.now()));
      answers = batch.outcomes.map((o) => ('result' in o ? o.result : decodeJobFailure(new Error(o.error))));
    } catch (err) {
      answers = jobs.map(() => err);
    }
    return input.calls.map((call, i) => {
      const answer = answers[i];
      return isFindResult(answer) ? { call, result: answer } : failedCall(call, answer);
    });
  }
}

function findJobOf(input: FanoutInput, call: RetrievalCall): FindJob {
  const identity = call.openContext ? openContext(input.identity) : input.identity;
  return {
    identity,
    query: call.query,
    targets: call.targetUri === '' ? resolveFindTargets(identity, '') : [call.targetUri],
    filter: call.contextTypeFilter ? withContextType(input.filter, [call.contextTypeFilter]) : input.filter,
    levels: null,
    limit: call.limit,
    scoreThreshold: input.scoreThreshold,
    abstractChars: callAbstractChars(input.calls.length),
  };
}

function isFindResult(v: unknown): v is FindResult {
  return !!v && typeof v === 'object' && Array.isArray((v as FindResult).memories);
}

/** A failed call's outcome; or the whole request's failure when the call's error says so. */
function failedCall(call: RetrievalCall, err: unknown): RetrievalOutcome {
  // Redis itself being away is not one failed call: the whole request is unavailable (503).
  if (err instanceof KernelError && err.code === KernelErrorCode.Unavailable) throw err;
  // An invalid argument fails the whole request with the 400 list mode would give (docs/contract.md#error-policy).
  const invalid = invalidArgumentOf(err);
  if (invalid) throw invalid;
  return { call, error: { name: errorName(err), message: err instanceof Error ? err.message : String(err) } };
}

function errorName(err: unknown): string {
  if (err instanceof KernelError) return err.code === 'DEADLINE_EXCEEDED' ? 'TimeoutError' : 'RetrievalError';
  return err instanceof Error && err.name !== 'Error' ? err.name : 'RuntimeError';
}

const REQUEST_ERRORS: ReadonlySet<string> = new Set([KernelErrorCode.InvalidArgument, KernelErrorCode.InvalidUri]);

/** The caller's mistake behind a failed call (raised here, or by the worker and decoded by the client), if any. */
function invalidArgumentOf(err: unknown): KernelError | null {
  return err instanceof KernelError && REQUEST_ERRORS.has(err.code) ? err : null;
}
