import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@app/config';
import { QueueName } from '@app/contracts';
import { BatchingEmbedder, EMBEDDER, EmbedModule, Embedder } from '@app/embed';
import { inProcessConsumer, QueueModule } from '@app/queue';
import { Db, NodeSearchRepository, STORE_DB, StoreModule } from '@app/store';
import { FindProcessor } from './find/find.processor';
import { FindService } from './find/find.service';
import { IndexProcessor } from './index/index.processor';
import { IndexEmbedding } from './index/index-embedding';
import { INDEX_EMBEDDER } from './index/index-text';
import { IndexRunGate } from './index/index-run-gate';
import { IndexRunGuard } from './index/index-run-guard.service';
import { IndexService } from './index/index.service';
import { OutboxRelayService } from './index/outbox-relay.service';
import { ScanProcessor } from './scan/scan.processor';
import { ScanService } from './scan/scan.service';
import { SidecarProcessor } from './index/sidecar.processor';
import { SidecarService } from './index/sidecar.service';

/** The retriever worker: `index` and `sidecar` jobs, the write-outbox relay, `find` and `scan` (grep/glob) jobs. */
@Module({})
export class RetrieverModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: RetrieverModule,
      imports: [ConfigModule.forRoot(config), StoreModule, QueueModule.forRoot(config), EmbedModule],
      providers: [
        // Index work shares one batching embedder, so concurrent jobs' texts go out in batches.
        { provide: INDEX_EMBEDDER, inject: [EMBEDDER], useFactory: (e: Embedder) => new BatchingEmbedder(e) },
        IndexEmbedding,
        IndexService,
        IndexRunGuard,
        IndexRunGate,
        IndexProcessor,
        inProcessConsumer(QueueName.Index, IndexProcessor),
        SidecarService,
        SidecarProcessor,
        inProcessConsumer(QueueName.Sidecar, SidecarProcessor),
        OutboxRelayService,
        { provide: NodeSearchRepository, inject: [STORE_DB], useFactory: (db: Db) => new NodeSearchRepository(db) },
        FindService,
        FindProcessor,
        inProcessConsumer(QueueName.Find, FindProcessor),
        ScanService,
        ScanProcessor,
        inProcessConsumer(QueueName.Scan, ScanProcessor),
      ],
    };
  }
}
