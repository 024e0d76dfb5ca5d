import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  DEFAULT_AUTO_COMMIT_POLICY,
  Identity,
  KernelError,
  KernelErrorCode,
  normaliseAutoCommitPolicy,
  normaliseEventTags,
  normaliseMemoryPolicy,
  storedMemoryPolicy,
  storedPolicy,
} from '@app/kernel';
import { QueueName } from '@app/contracts';
import { JobBus } from '@app/queue';
import { SessionRecord, SessionRepository } from '@app/store';
import { DedupLedgerService } from '../ledger/dedup-ledger.service';
import { AddMessageDto, AddMessagesBatchDto, CreateSessionDto, PatchSessionConfigDto } from './dto/sessions.dto';
import { buildMessages } from './message-input';
import { SessionCommitService } from './session-commit.service';
import { ToolOutputService } from './tool-output.service';

const DEFAULT_EXTRACTION = { events: { tags: [] as string[] } };

/** Sessions of the calling user; the actor-peer header never applies here. See docs/sessions.md. */
@Injectable()
export class SessionsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: SessionRepository,
    private readonly commits: SessionCommitService,
    private readonly ledger: DedupLedgerService,
    private readonly bus: JobBus,
    private readonly toolOutputs: ToolOutputService,
  ) {}

  /**
   * `POST …/extract`: memories from the live messages now, on an extractor (awaited, under the
   * extraction fuse plus slack); nothing is archived and no task is made. Answers the written files.
   */
  async extract(caller: Identity, sessionId: string) {
    const s = await this.sessions.find(caller, sessionId);
    if (!s)
      throw new KernelError(KernelErrorCode.NotFound, `Session not found: ${sessionId}`, {
        type: 'session',
        resource: sessionId,
      });
    const job = { accountId: caller.accountId, userId: caller.userId, sessionId };
    const timeoutMs = this.config.sessions.extractTimeoutMs + 15_000;
    return (await this.bus.call(QueueName.SessionExtract, job, { timeoutMs })).contexts;
  }

  async create(caller: Identity, dto: CreateSessionDto) {
    // Absent: the server default (off unless MUNINN_SESSION_AUTO_COMMIT_DEFAULT); explicit null: off.
    const policy =
      dto.auto_commit_policy === undefined
        ? this.defaultPolicy()
        : dto.auto_commit_policy === null
          ? null
          : normaliseAutoCommitPolicy(dto.auto_commit_policy);
    const tags = normaliseEventTags(dto.memory_extraction_config?.events?.tags ?? []);
    const memoryPolicy = dto.memory_policy == null ? null : normaliseMemoryPolicy(dto.memory_policy);
    const s = await this.sessions
      .create(caller, dto.session_id || generatedId(), { autoCommitPolicy: policy, eventTags: tags, memoryPolicy })
      .catch((err: unknown) => {
        if (err instanceof KernelError && err.code === KernelErrorCode.Conflict) {
          throw new KernelError(
            KernelErrorCode.AlreadyExists,
            `Resource already exists: Session '${dto.session_id}' already exists`,
            { resource: dto.session_id, type: 'session' },
          );
        }
        throw err;
      });
    return {
      session_id: s.session_id,
      uri: s.uri,
      user: user(caller),
      auto_commit_policy: policy,
      memory_extraction_config: { events: { tags } },
    };
  }

  async list(caller: Identity) {
    return (await this.sessions.list(caller)).map((s) => ({
      session_id: s.session_id,
      uri: s.uri,
      is_dir: true,
      mod_time: s.updated_at,
    }));
  }

  async get(caller: Identity, sessionId: string, autoCreate: boolean) {
    const s = autoCreate ? await this.ensure(caller, sessionId) : await this.sessions.find(caller, sessionId);
    if (!s) throw new KernelError(KernelErrorCode.NotFound, `Session ${sessionId} not found`);
    return meta(caller, s);
  }

  /** Deletes the session (messages, archives) and its dedup ledger; extracted memories and tasks stay. */
  async remove(caller: Identity, sessionId: string) {
    await this.ledger.forget({ accountId: caller.accountId, userId: caller.userId, sessionId });
    await this.sessions.delete(caller, sessionId);
    return { session_id: sessionId };
  }

  async patchConfig(caller: Identity, sessionId: string, dto: PatchSessionConfigDto) {
    const sent = dto.auto_commit_policy;
    // Merged with the stored policy inside the update's transaction, the row locked: two PATCHes of different
    // fields at once both take effect (merged from a read before it, the later one put back what the earlier changed).
    const policy =
      sent === undefined
        ? undefined
        : (stored: unknown) =>
            sent === null ? null : normaliseAutoCommitPolicy(sent, storedPolicy(stored) ?? DEFAULT_AUTO_COMMIT_POLICY);
    const rawTags = dto.memory_extraction_config?.events?.tags;
    const tags = rawTags == null ? undefined : normaliseEventTags(rawTags);
    const after = await this.sessions.updateConfig(caller, sessionId, { autoCommitPolicy: policy, eventTags: tags });
    // A new policy can put the session over its threshold, or give it an idle time: acted on now, as after a
    // message, not at the next message (which may never come).
    if (dto.auto_commit_policy !== undefined) this.commits.maybeAutoCommit(caller, after);
    return {
      session_id: sessionId,
      auto_commit_policy: storedPolicy(after.auto_commit_policy),
      memory_extraction_config: { events: { tags: after.event_tags } },
    };
  }

  /** Appends a message, creating the session when needed (as the reference does). */
  async addMessage(caller: Identity, sessionId: string, dto: AddMessageDto) {
    const built = buildMessages(dto, this.config.sessions, 'body');
    const s = await this.append(caller, sessionId, await this.toolOutputs.externalise(caller, sessionId, [built]));
    return { session_id: sessionId, message_count: s.message_count, pending_tokens: s.pending_tokens };
  }

  /** Appends a batch all or nothing; `added` counts stored messages (tool-result splits included). */
  async addBatch(caller: Identity, sessionId: string, dto: AddMessagesBatchDto) {
    const max = this.config.sessions.batchMax;
    if (dto.messages.length > max) {
      throw new KernelError(
        KernelErrorCode.InvalidArgument,
        `messages has ${dto.messages.length} items; at most ${max} are allowed (MUNINN_SESSION_BATCH_MAX)`,
        { field: 'messages' },
      );
    }
    const turns = dto.messages.map((m, i) => buildMessages(m, this.config.sessions, `messages[${i}]`));
    const msgs = await this.toolOutputs.externalise(caller, sessionId, turns);
    const s = msgs.length ? await this.append(caller, sessionId, msgs) : await this.ensure(caller, sessionId);
    return {
      session_id: sessionId,
      message_count: s.message_count,
      added: msgs.length,
      pending_tokens: s.pending_tokens,
    };
  }

  async messages(caller: Identity, sessionId: string) {
    const s = await this.sessions.find(caller, sessionId);
    if (!s) throw new KernelError(KernelErrorCode.NotFound, `Session ${sessionId} not found`);
    return this.sessions.liveMessages(caller, sessionId);
  }

  /** The session, materialised with the server's default policy when missing (write or auto_create). */
  private async ensure(caller: Identity, sessionId: string): Promise<SessionRecord> {
    return (await this.sessions.getOrCreate(caller, sessionId, { autoCommitPolicy: this.defaultPolicy() })).session;
  }

  private defaultPolicy() {
    return this.config.sessions.autoCommitByDefault ? DEFAULT_AUTO_COMMIT_POLICY : null;
  }

  private async append(
    caller: Identity,
    sessionId: string,
    msgs: Parameters<SessionRepository['addMessages']>[2],
  ): Promise<SessionRecord> {
    // Made, when missing, in the append's own transaction: all or nothing.
    const create = { autoCommitPolicy: this.defaultPolicy() };
    const { session } = await this.sessions.addMessages(caller, sessionId, msgs, { create });
    this.commits.maybeAutoCommit(caller, session);
    return session;
  }
}

const user = (c: Identity) => ({ account_id: c.accountId, user_id: c.userId });

/** The session meta in its wire shape (contract key order). */
function meta(caller: Identity, s: SessionRecord) {
  const extracted = s.memories_extracted;
  const usage = s.llm_token_usage;
  return {
    session_id: s.session_id,
    created_at: s.created_at,
    updated_at: s.updated_at,
    created_by_account_id: caller.accountId,
    created_by_user_id: caller.userId,
    message_count: s.message_count,
    total_message_count: s.total_message_count,
    commit_count: s.commit_count,
    memories_extracted: {
      memory_write: extracted.memory_write ?? 0,
      memory_edit: extracted.memory_edit ?? 0,
      total: extracted.total ?? 0,
    },
    last_commit_at: s.last_commit_at,
    llm_token_usage: {
      prompt_tokens: usage.prompt_tokens ?? 0,
      completion_tokens: usage.completion_tokens ?? 0,
      total_tokens: usage.total_tokens ?? 0,
      cached_tokens: 0,
      reasoning_tokens: 0,
    },
    embedding_token_usage: { total_tokens: 0 },
    pending_tokens: s.pending_tokens,
    keep_recent_count: s.keep_recent_count,
    retention_mode: s.retention_mode,
    keep_recent_turn_count: s.keep_recent_turn_count,
    retained_message_token_budget: s.retained_message_token_budget,
    min_raw_tail_steps: s.min_raw_tail_steps,
    memory_policy: storedMemoryPolicy(s.memory_policy),
    auto_commit_policy: storedPolicy(s.auto_commit_policy),
    last_message_at: s.last_message_at,
    last_auto_commit_at: s.last_auto_commit_at,
    uri: s.uri,
    user: user(caller),
    memory_extraction_config: { ...DEFAULT_EXTRACTION, events: { tags: s.event_tags } },
  };
}

/** `YYYYMMDD-HHMMSS-<16 lowercase hex>` (UTC), the generated session id format. */
function generatedId(): string {
  const d = new Date().toISOString();
  const stamp = `${d.slice(0, 4)}${d.slice(5, 7)}${d.slice(8, 10)}-${d.slice(11, 13)}${d.slice(14, 16)}${d.slice(17, 19)}`;
  const hex = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${stamp}-${hex}`;
}
