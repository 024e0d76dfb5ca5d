import { Injectable } from '@nestjs/common';
import { FindJob } from '@app/contracts';
import {
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
import { FindClient } from '@app/queue';

export interface FanoutInput {
  identity: Identity;
  calls: RetrievalCall[];
  filter: FilterNode | null;
  imageUrl: string | null;
  scoreThreshold: number | null;
  /** Absolute time (ms since epoch) by which every call must have answered. */
  deadline: number;
}

/**
 * Runs the planned `find` calls concurrently on the retriever queue under one deadline. A call
 * that fails or misses the deadline becomes an outcome with an error (→ `stats.retrieval_errors`).
 */
@Injectable()
export class RetrievalFanoutService {
  constructor(private readonly finder: FindClient) {}

  run(input: FanoutInput): Promise<RetrievalOutcome[]> {
    return Promise.all(input.calls.map((call) => this.one(input, call)));
  }

  private async one(input: FanoutInput, call: RetrievalCall): Promise<RetrievalOutcome> {
    try {
      const identity = call.openContext ? openContext(input.identity) : input.identity;
      const job: FindJob = {
        identity,
        query: call.query,
        imageUrl: input.imageUrl,
        targets: call.targetUri === '' ? resolveFindTargets(identity, '') : [call.targetUri],
        filter: call.contextTypeFilter ? withContextType(input.filter, [call.contextTypeFilter]) : input.filter,
        levels: null,
        limit: call.limit,
        scoreThreshold: input.scoreThreshold,
      };
      return { call, result: await this.finder.call(job, input.deadline - Date.now()) };
    } catch (err) {
      // Redis itself being away is not one failed call: the whole request is unavailable (503).
      if (err instanceof KernelError && err.code === KernelErrorCode.Unavailable) throw err;
      // An invalid argument fails the whole request with the 400 list mode would give (docs/contract.md#error-policy).
      const invalid = invalidArgumentOf(err);
      if (invalid) throw invalid;
      return { call, error: { name: errorName(err), message: err instanceof Error ? err.message : String(err) } };
    }
  }
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
