import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Fingerprint, idempotencyKeyProblem, KernelError, StoredReply } from '@app/kernel';
import { IdempotencyClaim, IdempotencyRepository, KeyOwner, WriteScope } from '@app/store';
import { IdempotencySweepService } from './idempotency-sweep.service';
import { keepResumedReply, settleAttempt } from './idempotent-replies';
import type { ResumeTarget } from './idempotent-request';

/** How an attempt sent with a key begins. */
export type AttemptStart =
  /** Refused before it ran: why (`details.reason` of the 409 / 422, or `malformed`), and the error to answer. */
  | { kind: 'refused'; reason: string; error: KernelError }
  /** A retry of a finished attempt: its kept reply (with what to wait for again, for a resumable 504). */
  | { kind: 'replay'; reply: StoredReply }
  /** A first attempt: the write scope to run it in, whose first write marks the key. */
  | { kind: 'run'; claim: IdempotencyClaim; scope: WriteScope };

/**
 * Where an idempotency key's attempt begins and ends (docs/limits-and-security.md, "Retrying a write:
 * Idempotency-Key"), for the REST routes' header and the MCP tools' `_meta` key alike: the key checked against its
 * bound, claimed, a retry answered with the kept reply, a first attempt given its write scope and, once answered,
 * kept or freed.
 */
/** No request runs this long; a renewal left running by a request never settled stops here. */
const MAX_RENEW_MS = 3_600_000;

@Injectable()
export class IdempotencyAttempts {
  private readonly logger = new Logger(IdempotencyAttempts.name);
  private readonly maxChars: number;

  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly sweep: IdempotencySweepService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.maxChars = config.store.idempotency.keyMaxChars;
  }

  /** Begins `owner`'s attempt with `key` for the request of `fingerprint`; `field` names where the key came. */
  async start(owner: KeyOwner, key: string, fingerprint: Fingerprint, field?: string): Promise<AttemptStart> {
    const problem = idempotencyKeyProblem(key, this.maxChars, field);
    if (problem) return { kind: 'refused', reason: 'malformed', error: problem };
    const outcome = await this.keys.claim(owner, key, fingerprint);
    if (outcome.kind === 'refuse') {
      const reason = String(outcome.error.details?.reason ?? outcome.error.code);
      return { kind: 'refused', reason, error: outcome.error };
    }
    if (outcome.kind === 'replay') return outcome;
    this.sweep.noteAccount(owner.accountId);
    const claim = outcome.claim;
    const scope: WriteScope = {
      state: 'open',
      applied: false,
      mark: (tx) => this.keys.markApplied(tx, claim),
      unapply: async () => {
        await this.keys.markUnapplied(claim);
        scope.applied = false;
      },
    };
    this.keepLease(claim, scope);
    return { kind: 'run', claim, scope };
  }

  /**
   * Renews the running attempt's lease every third of it until the attempt is settled. A write that waits for its
   * indexing may run up to `MUNINN_WAIT_MAX_S` (600 s), ten times the lease: before, its retry after the first
   * minute was told the attempt stopped before answering (409 `reply_lost`: "send a new key", which applies it
   * again), and an account trimmed to its key bound meanwhile lost the running attempt's key, so the next retry
   * applied the write twice. A gateway that stops renews nothing, and its keys' leases end as before.
   */
  private keepLease(claim: IdempotencyClaim, scope: WriteScope): void {
    const started = Date.now();
    const timer = setInterval(() => {
      if (scope.state !== 'open' || Date.now() - started > MAX_RENEW_MS) return clearInterval(timer);
      this.keys.renewLease(claim).then(
        (held) => held || clearInterval(timer),
        (err: Error) => this.logger.warn(`could not renew an idempotency key's lease: ${err.message}`),
      );
    }, this.keys.leaseMs / 3);
    timer.unref();
  }

  /** Ends a first attempt with its answer (see {@link settleAttempt}); the outcome `/metrics` counts. */
  settle(
    claim: IdempotencyClaim,
    scope: WriteScope,
    answer: { status: number; contentType: string; body: string | null },
  ): Promise<string> {
    return settleAttempt(this.keys, claim, scope, answer);
  }

  /** Ends a retry whose wait for the first attempt's indexing succeeded (see {@link keepResumedReply}). */
  keepResumed(target: ResumeTarget, answer: { status: number; contentType: string; body: string }) {
    return keepResumedReply(this.keys, target, answer);
  }
}
