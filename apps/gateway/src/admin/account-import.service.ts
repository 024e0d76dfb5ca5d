import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  AccountLimitOverrides,
  Identity,
  ImportMessageLine,
  ImportNodeLine,
  ImportOrder,
  importProblem,
  ImportSessionLine,
  invalidArgument,
  KernelError,
  KernelErrorCode,
  readImportLine,
  readLimitOverrides,
} from '@app/kernel';
import { AccountImportRepository, AuditRepository, IdentityRepository, ImportedSessionTally } from '@app/store';
import { IndexDispatchService } from '../content/index-dispatch.service';
import { adminAudit, requireRoot } from './admin-access';
import { ACCOUNT_ID, ACCOUNT_ID_MESSAGE } from './dto/admin.dto';
import { ndjsonLines } from './ndjson-lines';

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
}

type NumberedNode = ImportNodeLine & { line: number };

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

interface OpenSession {
  line: ImportSessionLine;
  tally: ImportedSessionTally;
  batch: ImportMessageLine[];
  batchBytes: number;
}

/**
 * Imports an account export into a new account (docs/limits-and-security.md, "Importing an account"):
 * the body is read line by line as it arrives, each line checked (kernel `readImportLine`, `ImportOrder`)
 * and written in batches, so memory holds one batch whatever the export's size. The account stays
 * suspended until the end line is in; an import that fails at any line is removed whole (the account
 * deleted, recorded in the trail) and the answer names the line.
 */
@Injectable()
export class AccountImportService {
  private readonly logger = new Logger(AccountImportService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly imports: AccountImportRepository,
    private readonly identities: IdentityRepository,
    private readonly audits: AuditRepository,
    private readonly dispatcher: IndexDispatchService,
  ) {}

  async importAccount(
    caller: Identity,
    accountId: string,
    body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  ): Promise<ImportOutcome> {
    requireRoot(this.config, caller);
    if (!ACCOUNT_ID.test(accountId) || accountId.startsWith('_'))
      throw invalidArgument(`account_id ${ACCOUNT_ID_MESSAGE} and not start with "_"`, { field: 'account_id' });
    const bounds = {
      maxUsers: this.config.store.quota.maxUsers,
      maxTags: this.config.limits.tagsMaxItems,
      maxTagChars: this.config.limits.tagMaxChars,
      maxDepth: this.config.limits.bodyMaxDepth,
    };
    const order = new ImportOrder();
    const out: ImportOutcome = { account_id: accountId, users: [], nodes: 0, sessions: 0, archives: 0, messages: 0 };
    let begun = false;
    let nodes: NumberedNode[] = [];
    let nodeBytes = 0;
    let session: OpenSession | null = null;
    let last = 0;
    let own: AccountLimitOverrides = {};

    const flushNodes = async () => {
      if (nodes.length === 0) return;
      const jobs = await this.imports.writeNodes(accountId, nodes).catch((e: unknown) => {
        throw atNodeLine(e, nodes);
      });
      for (const job of jobs) await this.dispatcher.dispatch(job);
      out.nodes += nodes.length;
      nodes = [];
      nodeBytes = 0;
    };
    const flushMessages = async (s: OpenSession) => {
      if (s.batch.length === 0) return;
      s.tally.pendingTokens += await this.imports.writeMessages(accountId, s.batch);
      out.messages += s.batch.length;
      s.batch = [];
      s.batchBytes = 0;
    };
    const closeSession = async () => {
      if (!session) return;
      await flushMessages(session);
      await this.imports.closeSession(accountId, session.line, session.tally);
      session = null;
    };

    try {
      for await (const { line, text, bytes } of ndjsonLines(body, this.config.store.import)) {
        last = line;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          throw importProblem(line, 'is not JSON');
        }
        const l = readImportLine(value, line, bounds);
        order.accept(l, line);
        switch (l.type) {
          case 'account':
            own = readLimitOverrides(l.limits);
            this.checkUsers(line, l.users.length, own);
            out.users = await this.imports.begin(
              accountId,
              l.users,
              l.limits,
              adminAudit(this.audits, caller, 'account.import', accountId, null, { users: l.users.length }),
            );
            begun = true;
            break;
          case 'node':
            if (nodes.length >= NODE_BATCH || (nodes.length > 0 && nodeBytes + bytes > BATCH_BYTES)) await flushNodes();
            nodes.push({ ...l, line });
            nodeBytes += bytes;
            break;
          case 'session':
            this.checkSessions(line, out.sessions + 1, own);
            await flushNodes();
            await closeSession();
            if (!(await this.imports.openSession(accountId, l)))
              throw importProblem(line, `session ${l.user_id}/${l.session_id} is listed twice`, 'session_id');
            session = {
              line: l,
              tally: {
                archivedMessages: 0,
                liveMessages: 0,
                lastSeq: 0,
                pendingTokens: 0,
                lastMessageAt: null,
                highestArchive: 0,
              },
              batch: [],
              batchBytes: 0,
            };
            out.sessions++;
            break;
          case 'archive': {
            const s = session as OpenSession | null;
            if (!s) break; // ImportOrder refuses an archive without its session
            await this.imports.writeArchive(accountId, l);
            s.tally.archivedMessages += l.messages.length;
            s.tally.highestArchive = Math.max(s.tally.highestArchive, l.archive_index);
            out.archives++;
            break;
          }
          case 'message': {
            const s = session as OpenSession | null;
            if (!s) break;
            if (s.batch.length >= MESSAGE_BATCH || (s.batch.length > 0 && s.batchBytes + bytes > BATCH_BYTES))
              await flushMessages(s);
            s.batch.push(l);
            s.batchBytes += bytes;
            s.tally.liveMessages++;
            s.tally.lastSeq = l.seq;
            s.tally.lastMessageAt = l.created_at;
            break;
          }
          case 'end':
            await flushNodes();
            await closeSession();
        }
      }
      order.assertEnded(last);
      await this.imports.finish(accountId);
      return out;
    } catch (err) {
      if (begun) await this.removeFailed(caller, accountId, err);
      throw err;
    }
  }

  /** The account's users within its bound (its own `max_users`, else the deployment's): 413 at the account line. */
  private checkUsers(line: number, users: number, own: AccountLimitOverrides): void {
    const max = own.max_users ?? this.config.store.quota.maxUsers;
    if (users > max)
      throw overQuota(line, `the export holds ${users} users, more than the account's ${max}`, 'account_users', max);
  }

  /**
   * The account's sessions within its bound (its own `max_sessions`, else the deployment's), counted as they
   * come: the import makes a new account, so what it wrote is all it holds. 413 at the line past the bound.
   */
  private checkSessions(line: number, sessions: number, own: AccountLimitOverrides): void {
    const max = own.max_sessions ?? this.config.store.quota.maxSessions;
    if (sessions > max)
      throw overQuota(line, `the export holds more than the account's ${max} sessions`, 'account_sessions', max);
  }

  /** A failed import leaves nothing behind: the account it made is deleted, and the trail says why. */
  private async removeFailed(caller: Identity, accountId: string, err: unknown): Promise<void> {
    const reason = `import failed: ${(err as Error).message}`.slice(0, 500);
    try {
      await this.identities.deleteAccount(
        accountId,
        adminAudit(this.audits, caller, 'account.delete', accountId, null, { reason }),
      );
    } catch (e) {
      // Left suspended ("import in progress"): an operator deletes it; no key of it is served meanwhile.
      this.logger.error(`a failed import of ${accountId} could not be removed: ${(e as Error).message}`);
    }
  }
}
