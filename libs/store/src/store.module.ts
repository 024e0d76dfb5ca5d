import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { DEPLOYMENT_ID, WORK_ACCOUNT, WorkAccount } from '@app/contracts';
import { Db } from './db/db.port';
import { openStore } from './open-store';
import { tracedDb } from './db/traced.db';
import { FirstWriteHook, hookFirstWrites } from './db/first-write';
import { writeScopeHook } from './db/write-scope';
import { tenantWriterHook } from './db/tenant-writer';
import { IdempotencyRepository } from './repositories/idempotency.repository';
import { IdentityRepository, keyServerSecret } from './repositories/identity.repository';
import { NodeIndexRepository } from './repositories/node-index.repository';
import { NodeFsRepository } from './repositories/node-fs.repository';
import { NodeListRepository } from './repositories/node-list.repository';
import { NodeScanRepository } from './repositories/node-scan.repository';
import { NodeRepository } from './repositories/node.repository';
import { WriteOptions } from './repositories/node-write';
import { OutboxRepository } from './repositories/outbox';
import { SessionRepository } from './repositories/session.repository';
import { SessionArchiveRepository } from './repositories/session-archive.repository';
import { SessionTaskRepository } from './repositories/session-task.repository';
import { SessionIdleCheckRepository } from './repositories/session-idle-check.repository';
import { SessionUsageRepository } from './repositories/session-usage.repository';
import { SessionToolResultRepository } from './repositories/session-tool-result.repository';
import { UploadTokenRepository } from './repositories/upload-token.repository';
import { AccountLimitsService } from './account-limits.service';
import { AuditRepository } from './repositories/audit.repository';
import { AccountExportRepository } from './repositories/account-export.repository';
import { AccountImportRepository } from './repositories/account-import.repository';

/** How every write path applies writes: the outbox grace, the account storage quota and the size of a file. */
const writeOptions = (cfg: AppConfig): WriteOptions => ({
  graceMs: cfg.indexing.outboxGraceMs,
  quota: cfg.store.quota,
  maxFileBytes: cfg.store.fileMaxBytes,
});

/** The hooks of the current request's writes, in order (first-write.ts). */
const requestWriteHooks = (): FirstWriteHook[] => {
  const hooks: FirstWriteHook[] = [];
  const tenant = tenantWriterHook();
  if (tenant) hooks.push(tenant);
  const scope = writeScopeHook();
  if (scope) hooks.push(scope);
  return hooks;
};

/** DI token for the opened {@link Db}. */
export const STORE_DB = Symbol('STORE_DB');

@Global()
@Module({
  providers: [
    {
      provide: STORE_DB,
      inject: [APP_CONFIG, { token: WORK_ACCOUNT, optional: true }],
      // Tenant writers (a registered user's request) and write scopes (idempotency keys) see every statement the
      // repositories run, the user's row held before the key is marked; outside them they cost nothing.
      useFactory: async (cfg: AppConfig, workAccount?: WorkAccount) =>
        hookFirstWrites(tracedDb(await openStore({ ...cfg.store, workAccount })), requestWriteHooks),
    },
    {
      provide: NodeRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) => new NodeRepository(db, writeOptions(cfg)),
    },
    { provide: NodeIndexRepository, inject: [STORE_DB], useFactory: (db: Db) => new NodeIndexRepository(db) },
    { provide: NodeListRepository, inject: [STORE_DB], useFactory: (db: Db) => new NodeListRepository(db) },
    {
      provide: NodeFsRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) =>
        new NodeFsRepository(db, cfg.indexing.outboxGraceMs, cfg.fs.moveMaxBytes, cfg.store.quota),
    },
    { provide: NodeScanRepository, inject: [STORE_DB], useFactory: (db: Db) => new NodeScanRepository(db) },
    { provide: OutboxRepository, inject: [STORE_DB], useFactory: (db: Db) => new OutboxRepository(db) },
    { provide: AccountExportRepository, inject: [STORE_DB], useFactory: (db: Db) => new AccountExportRepository(db) },
    {
      provide: AccountImportRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) => new AccountImportRepository(db, writeOptions(cfg)),
    },
    {
      provide: IdentityRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) =>
        new IdentityRepository(db, keyServerSecret(cfg.auth.keySecret, cfg.auth.rootApiKey), cfg.store.quota.maxUsers),
    },
    {
      provide: SessionRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) => new SessionRepository(db, cfg.sessions, cfg.store.quota),
    },
    {
      provide: SessionArchiveRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) => new SessionArchiveRepository(db, writeOptions(cfg)),
    },
    {
      provide: SessionTaskRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) =>
        new SessionTaskRepository(db, writeOptions(cfg), {
          ttlMs: cfg.sessions.taskTtlMs,
          failedTtlMs: cfg.sessions.failedTaskTtlMs,
        }),
    },
    {
      provide: SessionIdleCheckRepository,
      inject: [STORE_DB],
      useFactory: (db: Db) => new SessionIdleCheckRepository(db),
    },
    {
      provide: SessionUsageRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) =>
        new SessionUsageRepository(db, cfg.sessions.maxUsageRecords, cfg.store.quota),
    },
    {
      provide: SessionToolResultRepository,
      inject: [STORE_DB],
      useFactory: (db: Db) => new SessionToolResultRepository(db),
    },
    { provide: UploadTokenRepository, inject: [STORE_DB], useFactory: (db: Db) => new UploadTokenRepository(db) },
    {
      provide: AuditRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) => new AuditRepository(db, cfg.store.auditRetentionDays),
    },
    {
      provide: IdempotencyRepository,
      inject: [STORE_DB, APP_CONFIG],
      useFactory: (db: Db, cfg: AppConfig) =>
        new IdempotencyRepository(
          db,
          cfg.store.idempotency.ttlS,
          { keys: cfg.store.idempotency.maxKeysPerAccount, bytes: cfg.store.idempotency.maxBytesPerAccount },
          cfg.store.idempotency.leaseS,
        ),
    },
    {
      provide: AccountLimitsService,
      inject: [IdentityRepository, APP_CONFIG],
      useFactory: (identities: IdentityRepository, cfg: AppConfig) =>
        new AccountLimitsService(identities, {
          requests_per_minute: cfg.rate.accountPerMinute,
          model_tokens_per_day: cfg.sessions.accountModelTokensPerDay,
          max_nodes: cfg.store.quota.maxNodes,
          max_content_bytes: cfg.store.quota.maxContentBytes,
          max_sessions: cfg.store.quota.maxSessions,
          max_users: cfg.store.quota.maxUsers,
          max_pending_index: cfg.indexing.accountMaxPending,
          max_pending_commits: cfg.sessions.accountMaxPendingCommits,
          max_inflight: cfg.rate.accountMaxInflight,
          max_scans: cfg.rate.accountMaxScans,
          max_large_searches: cfg.rate.accountMaxLargeSearches,
          max_large_bodies: cfg.rate.accountMaxLargeBodies,
        }),
    },
    {
      provide: DEPLOYMENT_ID,
      inject: [STORE_DB],
      useFactory: async (db: Db) =>
        (await db.query<{ id: string }>('SELECT id FROM deployment ORDER BY created_at LIMIT 1')).rows[0]?.id ?? null,
    },
  ],
  exports: [
    STORE_DB,
    DEPLOYMENT_ID,
    NodeRepository,
    NodeFsRepository,
    NodeScanRepository,
    NodeIndexRepository,
    NodeListRepository,
    OutboxRepository,
    IdentityRepository,
    SessionRepository,
    SessionArchiveRepository,
    SessionTaskRepository,
    SessionIdleCheckRepository,
    SessionUsageRepository,
    SessionToolResultRepository,
    UploadTokenRepository,
    IdempotencyRepository,
    AccountLimitsService,
    AuditRepository,
    AccountExportRepository,
    AccountImportRepository,
  ],
})
export class StoreModule implements OnApplicationShutdown {
  constructor(@Inject(STORE_DB) private readonly db: Db) {}

  async onApplicationShutdown() {
    await this.db.close();
  }
}
