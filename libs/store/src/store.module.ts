import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Db } from './db/db.port';
import { openStore } from './open-store';
import { IdentityRepository } from './repositories/identity.repository';
import { NodeListRepository } from './repositories/node-list.repository';
import { NodeRepository } from './repositories/node.repository';
import { SessionRepository } from './repositories/session.repository';

/** DI token for the opened {@link Db}. */
export const STORE_DB = Symbol('STORE_DB');

@Global()
@Module({
  providers: [
    { provide: STORE_DB, inject: [APP_CONFIG], useFactory: (cfg: AppConfig) => openStore(cfg.store) },
    { provide: NodeRepository, inject: [STORE_DB], useFactory: (db: Db) => new NodeRepository(db) },
    { provide: NodeListRepository, inject: [STORE_DB], useFactory: (db: Db) => new NodeListRepository(db) },
    { provide: IdentityRepository, inject: [STORE_DB], useFactory: (db: Db) => new IdentityRepository(db) },
    { provide: SessionRepository, inject: [STORE_DB], useFactory: (db: Db) => new SessionRepository(db) },
  ],
  exports: [STORE_DB, NodeRepository, NodeListRepository, IdentityRepository, SessionRepository],
})
export class StoreModule implements OnApplicationShutdown {
  constructor(@Inject(STORE_DB) private readonly db: Db) {}

  async onApplicationShutdown() {
    await this.db.close();
  }
}
