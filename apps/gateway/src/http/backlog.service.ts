import { Injectable } from '@nestjs/common';
import { Identity, KernelError, KernelErrorCode, limitSource } from '@app/kernel';
import { AccountLimitsService, AccountReadings, OutboxRepository, SessionTaskRepository } from '@app/store';

/** How long one count of an account's backlog answers its requests on this gateway. */
export const BACKLOG_TTL_MS = 1000;
/** With a bound off (0), `system/status` still counts the backlog, up to this many. */
const UNBOUNDED_COUNT_CAP = 10_000;

/** An account's backlogs against their bounds (`GET /system/status`); null max: unbounded. */
export interface BacklogReport {
  index_pending: number;
  max_index_pending: number | null;
  /** Of the pending files, those set aside because indexing them took down a worker (docs/architecture.md). */
  index_held: number;
  commits_pending: number;
  max_commits_pending: number | null;
}

/** One bound: what it counts, the account limit it is (0: off) and how a refusal names it. */
interface Bound {
  limit: 'index_backlog' | 'commit_backlog';
  /** How the refusal's message names the backlog. */
  title: 'Index' | 'Commit';
  name: 'max_pending_index' | 'max_pending_commits';
  readings: AccountReadings;
  /** What the pending count counts, for the refusal's message. */
  what: string;
}

/**
 * Bounds the background work one account's requests leave waiting (docs/limits-and-security.md,
 * "Backlog bounds"). Rate limits bound how fast a tenant sends requests, not how far its writes and
 * commits get ahead of the workers: a tenant writing faster than its files were embedded, or committing
 * faster than its sessions were extracted, grew its outbox or its open tasks, and its queued jobs (Redis
 * memory every tenant shares), without end, and waited ever longer for its own work. A write is refused
 * (429) while `MUNINN_ACCOUNT_MAX_PENDING_INDEX` (or the account's own bound) of its files await
 * indexing, a commit while `MUNINN_ACCOUNT_MAX_PENDING_COMMITS` (or its own) of its commits await
 * extraction. Counts are read from the store at most once per second per account and gateway, so a
 * request costs no statement; a bound can be passed by one second of requests, and one write larger
 * than the room left passes whole.
 */
@Injectable()
export class BacklogService {
  private readonly files: Bound;
  private readonly commits: Bound;

  constructor(
    private readonly outbox: OutboxRepository,
    tasks: SessionTaskRepository,
    private readonly limits: AccountLimitsService,
  ) {
    // Counted up to the account's bound (its own, docs/limits-and-security.md "Per-account limits", or the deployment's).
    const upTo = async (a: string, name: Bound['name']) => {
      const max = (await limits.of(a))[name];
      return max > 0 ? max : UNBOUNDED_COUNT_CAP;
    };
    this.files = {
      limit: 'index_backlog',
      title: 'Index',
      name: 'max_pending_index',
      readings: new AccountReadings(BACKLOG_TTL_MS, async (a) =>
        outbox.pendingFiles(a, await upTo(a, 'max_pending_index')),
      ),
      what: 'files of this account are written but not yet indexed',
    };
    this.commits = {
      limit: 'commit_backlog',
      title: 'Commit',
      name: 'max_pending_commits',
      readings: new AccountReadings(BACKLOG_TTL_MS, async (a) =>
        tasks.openCommits(a, await upTo(a, 'max_pending_commits')),
      ),
      what: 'commits of this account await their extraction',
    };
  }

  /** The account's backlogs as the bounds see them (each counted up to its bound, the same readings). */
  async report(accountId: string): Promise<BacklogReport> {
    const [files, commits, limits, held] = await Promise.all([
      this.files.readings.get(accountId),
      this.commits.readings.get(accountId),
      this.limits.of(accountId),
      this.outbox.heldFiles(accountId),
    ]);
    return {
      index_pending: files,
      max_index_pending: limits.max_pending_index || null,
      index_held: held,
      commits_pending: commits,
      max_commits_pending: limits.max_pending_commits || null,
    };
  }

  /** 429 RESOURCE_EXHAUSTED (`details.limit` `index_backlog`) while the account's unindexed files are at the bound. */
  assertIndexRoom(caller: Identity): Promise<void> {
    return this.assertRoom(this.files, caller);
  }

  /** 429 RESOURCE_EXHAUSTED (`details.limit` `commit_backlog`) while the account's unextracted commits are at the bound. */
  assertCommitRoom(caller: Identity): Promise<void> {
    return this.assertRoom(this.commits, caller);
  }

  private async assertRoom(bound: Bound, caller: Identity): Promise<void> {
    const { limits, own } = await this.limits.applied(caller.accountId);
    const max = limits[bound.name];
    if (max === 0) return;
    const pending = await bound.readings.get(caller.accountId);
    if (pending < max) return;
    const source = limitSource(bound.name, own);
    throw new KernelError(
      KernelErrorCode.ResourceExhausted,
      `${bound.title} backlog full: ${pending} ${bound.what}, the limit is ${max} (${source}); retry once they are done`,
      { limit: bound.limit, max, pending, retry_after_s: Math.ceil(BACKLOG_TTL_MS / 1000) },
    );
  }
}
