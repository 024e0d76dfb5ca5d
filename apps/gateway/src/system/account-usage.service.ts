import { Injectable } from '@nestjs/common';
import { ModelBudget } from '@app/queue';
import { AccountLimitsService, NodeRepository, SessionRepository } from '@app/store';
import { BacklogReport, BacklogService } from '../http/backlog.service';

/** What an account holds and has spent against its bounds (each null max: unbounded). */
export interface AccountUsageReport {
  storage: {
    nodes: number;
    content_bytes: number;
    max_nodes: number | null;
    max_content_bytes: number | null;
    sessions: number;
    max_sessions: number | null;
  };
  backlog: BacklogReport;
  /** `tokens_today` null: the count could not be read (Redis away), and the budget then does not apply. */
  model: { tokens_today: number | null; max_tokens_per_day: number | null };
}

/**
 * One account's usage against its bounds, as they apply to it (the deployment's, or its own: docs/
 * limits-and-security.md, "Per-account limits"): what `GET /api/v1/system/status` shows its caller and
 * `GET /api/v1/admin/accounts/{id}/usage` shows root and the account's admin.
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

  async report(accountId: string): Promise<AccountUsageReport> {
    const { model_tokens_per_day: modelLimit } = await this.limits.of(accountId);
    const [usage, held, backlog, modelTokens] = await Promise.all([
      this.nodes.storage(accountId),
      this.sessions.accountSessions(accountId),
      this.backlog.report(accountId),
      this.modelBudget.usedToday(accountId, modelLimit).catch(() => null),
    ]);
    return {
      storage: {
        nodes: usage.nodes,
        content_bytes: usage.contentBytes,
        max_nodes: usage.quota?.maxNodes ?? null,
        max_content_bytes: usage.quota?.maxContentBytes ?? null,
        sessions: held.sessions,
        max_sessions: held.maxSessions,
      },
      backlog,
      model: { tokens_today: modelTokens, max_tokens_per_day: modelLimit || null },
    };
  }
}
