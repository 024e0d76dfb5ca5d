import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@app/config';
import { QueueName } from '@app/contracts';
import { LlmModule } from '@app/llm';
import { inProcessConsumer, QueueModule } from '@app/queue';
import { StoreModule } from '@app/store';
import { ExtractProcessor } from './extract/extract.processor';
import { ExtractService } from './extract/extract.service';
import { IdleCommitProcessor } from './extract/idle-commit.processor';
import { IdleCommitService } from './extract/idle-commit.service';
import { IdleRelayService } from './extract/idle-relay.service';
import { ManualExtractProcessor } from './extract/manual-extract.processor';
import { MemoryExtractor } from './extract/memory-extractor';
import { TaskRelayService } from './extract/task-relay.service';

/**
 * The extractor worker: `extract` jobs of session commits (archive summary + memories). Its own app,
 * not the rewriter: it writes to the store (the rewriter never does) and its load — one job per commit,
 * seconds of model time each — scales apart from the request-path rewrites. See docs/sessions.md.
 */
@Module({})
export class ExtractorModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ExtractorModule,
      imports: [ConfigModule.forRoot(config), StoreModule, QueueModule.forRoot(config), LlmModule],
      providers: [
        MemoryExtractor,
        ExtractService,
        ExtractProcessor,
        inProcessConsumer(QueueName.Extract, ExtractProcessor),
        TaskRelayService,
        IdleCommitService,
        IdleCommitProcessor,
        IdleRelayService,
        inProcessConsumer(QueueName.SessionIdle, IdleCommitProcessor),
        ManualExtractProcessor,
        inProcessConsumer(QueueName.SessionExtract, ManualExtractProcessor),
      ],
    };
  }
}
