import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { OutboxRepository, SessionTaskRepository } from '@app/store';
import { AccountReadings } from './account-readings';

/** How long one count of an account's backlog answers its requests on this gateway. */
export const BACKLOG_TTL_MS = 1000;
/** With a bound off (0), `system/status` still counts the backlog, up to this many. */
const UNBOUNDED_COUNT_CAP = 10_000;

/** An account's backlogs against their bounds (`GET /system/status`); null max: unbounded. */
export interface BacklogReport {
  index_pending: number;
  max_index_pending: number | null;
  commits_pending: number;
  max_commits_pending: number | null;
}

/**
 * Bounds the background work one account's requests leave waiting (docs/limits-and-security.md,
 * "Backlog bounds"). Rate limits bound how fast a tenant sends requests, not how far its writes and
 * commits get ahead of the workers: a tenant writing faster than its files were embedded, or committing
 * faster than its sessions were extracted, grew its outbox or its open tasks, and its queued jobs (Redis
 * memory every tenant shares), without end, and waited ever longer for its own work. A write is refused
 * (429) while `MUNINN_ACCOUNT_MAX_PENDING_INDEX` of the account's files await indexing, a commit while
 * `MUNINN_ACCOUNT_MAX_PENDING_COMMITS` of its commits await extraction. Counts are read from the store at
 * most once per second per account and gateway, so a request costs no statement; a bound can be passed
 * by one second of requests, and one write larger than the room left passes whole.
 */
@Injectable()
export class BacklogService {
  private readonly maxIndex: number;
  private readonly maxCommits: number;
  private readonly files: AccountReadings;
  private readonly commits: AccountReadings;

  constructor(@Inject(APP_CONFIG) config: AppConfig, outbox: OutboxRepository, tasks: SessionTaskRepository) {
    this.maxIndex = config.indexing.accountMaxPending;
    this.maxCommits = config.sessions.accountMaxPendingCommits;
    const upTo = (max: number) => (max > 0 ? max : UNBOUNDED_COUNT_CAP);
    this.files = new AccountReadings(BACKLOG_TTL_MS, (a) => outbox.pendingFiles(a, upTo(this.maxIndex)));
    this.commits = new AccountReadings(BACKLOG_TTL_MS, (a) => tasks.openCommits(a, upTo(this.maxCommits)));
  }

  /** The account's backlogs as the bounds see them (each counted up to its bound, the same readings). */
  async report(accountId: string): Promise<BacklogReport> {
    const [files, commits] = await Promise.all([this.files.get(accountId), this.commits.get(accountId)]);
    return {
      index_pending: files,
      max_index_pending: this.maxIndex || null,
      commits_pending: commits,
      max_commits_pending: this.maxCommits || null,
    };
  }

  /** 429 RESOURCE_EXHAUSTED (`details.limit` `index_backlog`) while the account's unindexed files are at the bound. */
  async assertIndexRoom(caller: Identity): Promise<void> {
    if (this.maxIndex === 0) return;
    const pending = await this.files.get(caller.accountId);
    if (pending >= this.maxIndex)
      throw full('index_backlog', pending, this.maxIndex, 'files of this account are written but not yet indexed');
  }

  /** 429 RESOURCE_EXHAUSTED (`details.limit` `commit_backlog`) while the account's unextracted commits are at the bound. */
  async assertCommitRoom(caller: Identity): Promise<void> {
    if (this.maxCommits === 0) return;
    const pending = await this.commits.get(caller.accountId);
    if (pending >= this.maxCommits)
      throw full('commit_backlog', pending, this.maxCommits, 'commits of this account await their extraction');
  }
}

function full(limit: 'index_backlog' | 'commit_backlog', pending: number, max: number, what: string): KernelError {
  const variable =
    limit === 'index_backlog' ? 'MUNINN_ACCOUNT_MAX_PENDING_INDEX' : 'MUNINN_ACCOUNT_MAX_PENDING_COMMITS';
  const kind = limit === 'index_backlog' ? 'Index' : 'Commit';
  return new KernelError(
    KernelErrorCode.ResourceExhausted,
    `${kind} backlog full: ${pending} ${what}, the limit is ${max} (${variable}); retry once they are done`,
    { limit, max, pending, retry_after_s: Math.ceil(BACKLOG_TTL_MS / 1000) },
  );
}
