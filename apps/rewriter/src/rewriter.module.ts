import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@app/config';
import { QueueName } from '@app/contracts';
import { LlmModule } from '@app/llm';
import { inProcessConsumer, QueueModule } from '@app/queue';
import { DigestProcessor } from './digest/digest.processor';
import { DigestService } from './digest/digest.service';
import { ExpandProcessor } from './expand/expand.processor';
import { ExpandService } from './expand/expand.service';

/** The rewriter worker: `expand` (query planning) and `digest` (cited rewrite) LLM jobs. */
@Module({})
export class RewriterModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: RewriterModule,
      imports: [ConfigModule.forRoot(config), QueueModule.forRoot(config), LlmModule],
      providers: [
        ExpandService,
        ExpandProcessor,
        inProcessConsumer(QueueName.Expand, ExpandProcessor),
        DigestService,
        DigestProcessor,
        inProcessConsumer(QueueName.Digest, DigestProcessor),
      ],
    };
  }
}
