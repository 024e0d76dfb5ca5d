import {
  AccountLimitOverrides,
  ImportAccountLine,
  ImportLine,
  ImportMessageLine,
  ImportNodeLine,
  importProblem,
  ImportSessionLine,
  KernelError,
  KernelErrorCode,
  readLimitOverrides,
  sessionCheck,
} from '@app/kernel';
import { AccountImportRepository, AuditSink, ImportClaim, ImportedSessionTally } from '@app/store';
import { IndexDispatchService } from '../content/index-dispatch.service';

/** Node lines written per transaction, and their bytes at most (a larger file alone). */
const NODE_BATCH = 256;
const BATCH_BYTES = 4 * 1024 * 1024;
/** Live messages written per transaction. */
const MESSAGE_BATCH = 500;

/** What an import made: the account, its users with their new keys (shown once), and the counts. */
export interface ImportOutcome {
  account_id: string;
  users: { user_id: string; role: string; user_key: string }[];
  nodes: number;
  sessions: number;
  archives: number;
  messages: number;
  /** Tool-result records and unconsumed usage records of the sessions. */
  tool_results: number;
  usage: number;
}

/** The deployment's quotas an account without its own takes. */
export interface ImportQuotas {
  maxUsers: number;
  maxSessions: number;
  /** Usage records one session holds at most (MUNINN_SESSION_MAX_USAGE_RECORDS, as `POST …/used`). */
  maxUsageRecords: number;
  /** Tool results one session holds at most (MUNINN_SESSION_TOOL_RESULTS_MAX, as a message write). */
  maxToolResults: number;
}

type NumberedNode = ImportNodeLine & { line: number };

/** An imported session its policy will commit: its check is scheduled once the import is in. */
export interface IdleSession {
  userId: string;
  sessionId: string;
  delayMs: number;
}

interface OpenSession {
  line: ImportSessionLine;
  tally: ImportedSessionTally;
  batch: ImportMessageLine[];
  batchBytes: number;
  /** Usage records and tool results taken so far. */
  records: { usage: number; tool_result: number };
}

/**
 * Writes one import's checked lines in batches (docs/limits-and-security.md, "Importing an account"):
 * nodes 256 or 4 MiB at a time, a session's messages 500 at a time, each batch one transaction, so it holds
 * one batch whatever the export's size. `begun` says whether the account exists (a failure must remove it).
 */
export class ImportWriter {
  readonly outcome: ImportOutcome;
  /** The import's hold on its account, once the account line made it (the claim every write checks). */
  claim: ImportClaim | null = null;
  private own: AccountLimitOverrides = {};
  private nodes: NumberedNode[] = [];
  private nodeBytes = 0;
  private session: OpenSession | null = null;
  /** Sessions with live messages their policy will commit (at most the account's max_sessions). */
  readonly idle: IdleSession[] = [];

  constructor(
    private readonly imports: AccountImportRepository,
    private readonly dispatcher: IndexDispatchService,
    private readonly accountId: string,
    private readonly quotas: ImportQuotas,
    /** The `account.import` event, written with the account. */
    private readonly audit: (users: number) => AuditSink,
  ) {
    this.outcome = {
      account_id: accountId,
      users: [],
      nodes: 0,
      sessions: 0,
      archives: 0,
      messages: 0,
      tool_results: 0,
      usage: 0,
    };
  }

  /** Takes line number `line` (already checked by `readImportLine` and `ImportOrder`), `bytes` long. */
  async take(l: ImportLine, line: number, bytes: number): Promise<void> {
    switch (l.type) {
      case 'account':
        return this.account(l, line);
      case 'node':
        if (this.nodes.length >= NODE_BATCH || (this.nodes.length > 0 && this.nodeBytes + bytes > BATCH_BYTES))
          await this.flushNodes();
        this.nodes.push({ ...l, line });
        this.nodeBytes += bytes;
        return;
      case 'session':
        return this.openSession(l, line);
      case 'archive': {
        const s = this.session;
        if (!s) return; // ImportOrder refuses an archive without its session
        await this.imports.writeArchive(this.held(), l);
        s.tally.archivedMessages += l.messages.length;
        s.tally.highestArchive = Math.max(s.tally.highestArchive, l.archive_index);
        this.outcome.archives++;
        return;
      }
      case 'message': {
        const s = this.session;
        if (!s) return;
        if (s.batch.length >= MESSAGE_BATCH || (s.batch.length > 0 && s.batchBytes + bytes > BATCH_BYTES))
          await this.flushMessages(s);
        s.batch.push(l);
        s.batchBytes += bytes;
        s.tally.liveMessages++;
        s.tally.lastSeq = l.seq;
        s.tally.lastMessageAt = l.created_at;
        return;
      }
      case 'tool_result':
      case 'usage': {
        const s = this.session;
        if (!s) return; // ImportOrder refuses one without its session
        // The session's messages first: a record follows them, and the session's counters are written at its close.
        await this.flushMessages(s);
        // Each kind within its per-session bound, as the live routes hold it.
        const [max, what, limit] =
          l.type === 'usage'
            ? [this.quotas.maxUsageRecords, 'usage records', 'session_usage_records']
            : [this.quotas.maxToolResults, 'tool results', 'session_tool_results'];
        if (++s.records[l.type] > max)
          throw overQuota(line, `session ${l.session_id} holds more than ${max} ${what}`, limit, max);
        if (l.type === 'usage') await this.imports.writeUsage(this.held(), l);
        else if (!(await this.imports.writeToolResult(this.held(), l)))
          throw importProblem(line, `tool result ${l.tool_result_id} is listed twice`, 'tool_result_id');
        this.outcome[l.type === 'usage' ? 'usage' : 'tool_results']++;
        return;
      }
      case 'end':
        await this.flushNodes();
        await this.closeSession();
    }
  }

  /** Creates the account with its users, within its own `max_users` (else the deployment's): 413 here. */
  private async account(l: ImportAccountLine, line: number): Promise<void> {
    this.own = readLimitOverrides(l.limits);
    const max = this.own.max_users ?? this.quotas.maxUsers;
    if (l.users.length > max)
      throw overQuota(
        line,
        `the export holds ${l.users.length} users, more than the account's ${max}`,
        'account_users',
        max,
      );
    const begun = await this.imports.begin(this.accountId, l.users, this.own, this.audit(l.users.length));
    this.outcome.users = begun.users;
    this.claim = begun.claim;
  }

  /**
   * Starts a session, within the account's own `max_sessions` (else the deployment's), counted as they come:
   * the import makes a new account, so what it wrote is all it holds.
   */
  private async openSession(l: ImportSessionLine, line: number): Promise<void> {
    const max = this.own.max_sessions ?? this.quotas.maxSessions;
    if (this.outcome.sessions + 1 > max)
      throw overQuota(line, `the export holds more than the account's ${max} sessions`, 'account_sessions', max);
    await this.flushNodes();
    await this.closeSession();
    if (!(await this.imports.openSession(this.held(), l)))
      throw importProblem(line, `session ${l.user_id}/${l.session_id} is listed twice`, 'session_id');
    const tally = {
      archivedMessages: 0,
      liveMessages: 0,
      lastSeq: 0,
      pendingTokens: 0,
      lastMessageAt: null,
      highestArchive: 0,
    };
    this.session = { line: l, tally, batch: [], batchBytes: 0, records: { usage: 0, tool_result: 0 } };
    this.outcome.sessions++;
  }

  /** The claim; the account line comes first (ImportOrder), so every later line has one. */
  private held(): ImportClaim {
    if (!this.claim) throw new Error('an import line before its account line');
    return this.claim;
  }

  private async flushNodes(): Promise<void> {
    const batch = this.nodes;
    if (batch.length === 0) return;
    const jobs = await this.imports.writeNodes(this.held(), batch).catch((e: unknown) => {
      throw atNodeLine(e, batch);
    });
    for (const job of jobs) await this.dispatcher.dispatch(job);
    this.outcome.nodes += batch.length;
    this.nodes = [];
    this.nodeBytes = 0;
  }

  private async flushMessages(s: OpenSession): Promise<void> {
    if (s.batch.length === 0) return;
    s.tally.pendingTokens += await this.imports.writeMessages(this.held(), s.batch);
    this.outcome.messages += s.batch.length;
    s.batch = [];
    s.batchBytes = 0;
  }

  private async closeSession(): Promise<void> {
    const s = this.session;
    if (!s) return;
    await this.flushMessages(s);
    await this.imports.closeSession(this.held(), s.line, s.tally);
    // Its check: now when the policy's threshold is already exceeded (the source would have committed at the
    // next message), else at its idle time or when its throttle ends.
    const check = sessionCheck(
      s.line.auto_commit_policy,
      {
        pendingTokens: s.tally.pendingTokens,
        messageCount: s.tally.liveMessages,
        keepRecentCount: s.line.keep_recent_count,
        lastAutoCommitAt: s.line.last_auto_commit_at ? Date.parse(s.line.last_auto_commit_at) : null,
        lastMessageAt: s.tally.lastMessageAt ? Date.parse(s.tally.lastMessageAt) : null,
      },
      Date.now(),
    );
    const wait = check.commit !== null ? 0 : check.nextInMs;
    if (wait !== null)
      this.idle.push({ userId: s.line.user_id, sessionId: s.line.session_id, delayMs: Math.max(0, wait) });
    this.session = null;
  }
}

/**
 * A batch's write refused because of one of its nodes (listed twice, a file where a directory is, …) is
 * reported at that node's line, as a line's own check is.
 */
function atNodeLine(err: unknown, batch: NumberedNode[]): unknown {
  if (!(err instanceof KernelError)) return err;
  const uri = err.details?.resource ?? err.details?.uri;
  // The last line naming it: of a node listed twice in one batch, the second is the refused one.
  let node: NumberedNode | undefined;
  for (const n of batch) if (n.uri === uri) node = n;
  if (!node) return err;
  const message = err.code === KernelErrorCode.AlreadyExists ? `node ${node.uri} is listed twice` : err.message;
  return importProblem(node.line, message, 'uri');
}

/** A storage quota the export would pass (413, as a write past it), at the line that passes it. */
function overQuota(line: number, what: string, limit: string, max: number): KernelError {
  return new KernelError(KernelErrorCode.PayloadTooLarge, `line ${line}: account storage quota exceeded: ${what}`, {
    field: `line ${line}`,
    limit,
    max,
  });
}
