import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { AssemblerModule } from '../../assembler/src/assembler.module';
import { ExtractorModule } from '../../extractor/src/extractor.module';
import { GatewayModule } from '../../gateway/src/gateway.module';
import { RetrieverModule } from '../../retriever/src/retriever.module';
import { RewriterModule } from '../../rewriter/src/rewriter.module';

/**
 * The composition root of a single-process run. It is the one place allowed to import other apps
 * (enforced by dependency-cruiser); the apps themselves only meet through the queues.
 */
@Module({})
export class StandaloneModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: StandaloneModule,
      imports: [
        GatewayModule.forRoot(config),
        RetrieverModule.forRoot(config),
        AssemblerModule.forRoot(config),
        RewriterModule.forRoot(config),
        ExtractorModule.forRoot(config),
      ],
    };
  }
}
