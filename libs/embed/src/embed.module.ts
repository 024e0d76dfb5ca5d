import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { createEmbedder } from './create-embedder';

/** DI token of the process's {@link Embedder}. */
export const EMBEDDER = Symbol('EMBEDDER');

@Global()
@Module({
  providers: [
    {
      provide: EMBEDDER,
      inject: [APP_CONFIG],
      useFactory: (cfg: AppConfig) =>
        createEmbedder({
          provider: cfg.embedding.provider,
          baseUrl: cfg.embedding.baseUrl ?? undefined,
          apiKey: cfg.embedding.apiKey ?? undefined,
          model: cfg.embedding.model ?? undefined,
          dim: cfg.embedding.dim ?? undefined,
          timeoutMs: cfg.embedding.timeoutMs,
          maxRetries: cfg.embedding.maxRetries,
        }),
    },
  ],
  exports: [EMBEDDER],
})
export class EmbedModule {}
