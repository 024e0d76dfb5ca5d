import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@app/config';
import { QueueName } from '@app/contracts';
import { EmbedModule } from '@app/embed';
import { inProcessConsumer, QueueModule } from '@app/queue';
import { Db, NodeSearchRepository, STORE_DB, StoreModule } from '@app/store';
import { FindProcessor } from './find/find.processor';
import { FindService } from './find/find.service';
import { IndexProcessor } from './index/index.processor';
import { IndexService } from './index/index.service';

/** The retriever worker: `index` jobs and `find` jobs. */
@Module({})
export class RetrieverModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: RetrieverModule,
      imports: [ConfigModule.forRoot(config), StoreModule, QueueModule.forRoot(config), EmbedModule],
      providers: [
        IndexService,
        IndexProcessor,
        inProcessConsumer(QueueName.Index, IndexProcessor),
        { provide: NodeSearchRepository, inject: [STORE_DB], useFactory: (db: Db) => new NodeSearchRepository(db) },
        FindService,
        FindProcessor,
        inProcessConsumer(QueueName.Find, FindProcessor),
      ],
    };
  }
}
