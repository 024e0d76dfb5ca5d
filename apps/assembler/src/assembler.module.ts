import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@app/config';
import { QueueName } from '@app/contracts';
import { inProcessConsumer, QueueModule } from '@app/queue';
import { StoreModule } from '@app/store';
import { AssembleProcessor } from './assemble/assemble.processor';
import { AssembleService } from './assemble/assemble.service';
import { BodyReaderService } from './assemble/body-reader.service';
import { PlanThreads } from './assemble/plan-threads';

/** The assembler worker: `assemble` jobs (bodies, tiers, budget, render). */
@Module({})
export class AssemblerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AssemblerModule,
      imports: [ConfigModule.forRoot(config), StoreModule, QueueModule.forRoot(config)],
      providers: [
        BodyReaderService,
        PlanThreads,
        AssembleService,
        AssembleProcessor,
        inProcessConsumer(QueueName.Assemble, AssembleProcessor),
      ],
    };
  }
}
