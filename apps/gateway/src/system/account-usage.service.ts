import { Injectable } from '@nestjs/common';
import { AccountLimitValues, effectiveLimits } from '@app/kernel';
import { ModelBudget } from '@app/queue';
import { AccountLimitsService, NodeRepository, SessionRepository } from '@app/store';
import { BacklogReport, BacklogService } from '../http/backlog.service';

/** What an account holds and has spent against its bounds (a null max: unbounded). */
export interface AccountUsageReport {
  storage: {
    nodes: number;
    content_bytes: number;
    max_nodes: number;
    max_content_bytes: number;
    sessions: number;
    max_sessions: number;
  };
  backlog: BacklogReport;
  /** `tokens_today` null: the count could not be read (Redis away), and the budget then does not apply. */
  model: { tokens_today: number | null; max_tokens_per_day: number | null };
}

/**
 * One account's usage against its bounds, as they apply to it (the deployment's, or its own: docs/
 * limits-and-security.md, "Per-account limits"): what `GET /api/v1/system/status` shows its caller and
 * `GET /api/v1/admin/accounts/{id}/usage` shows root and the account's admin. The bounds come from one
 * reading of the account's own limits, not the 5-second cache: what is shown is what the next write
 * will be checked against.
 */
@Injectable()
export class AccountUsageService {
  constructor(
    private readonly nodes: NodeRepository,
    private readonly sessions: SessionRepository,
    private readonly backlog: BacklogService,
    private readonly modelBudget: ModelBudget,
    private readonly limits: AccountLimitsService,
  ) {}

  /** The account's usage, and the limits it was measured against (the admin route also shows users). */
  async report(accountId: string): Promise<{ usage: AccountUsageReport; limits: AccountLimitValues }> {
    const limits = effectiveLimits(this.limits.defaults, await this.limits.ownOf(accountId));
    const [stored, sessions, backlog, modelTokens] = await Promise.all([
      this.nodes.storage(accountId),
      this.sessions.accountSessions(accountId),
      this.backlog.report(accountId),
      this.modelBudget.usedToday(accountId, limits.model_tokens_per_day).catch(() => null),
    ]);
    const usage = {
      storage: {
        nodes: stored.nodes,
        content_bytes: stored.contentBytes,
        max_nodes: limits.max_nodes,
        max_content_bytes: limits.max_content_bytes,
        sessions,
        max_sessions: limits.max_sessions,
      },
      backlog,
      model: { tokens_today: modelTokens, max_tokens_per_day: limits.model_tokens_per_day || null },
    };
    return { usage, limits };
  }
}
