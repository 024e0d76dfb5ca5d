import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { LlmClient } from './llm-client';
import { llmSettings } from './llm-settings';

/** Provides the process's {@link LlmClient}, built once from the validated config. */
@Module({
  providers: [
    { provide: LlmClient, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new LlmClient(llmSettings(config)) },
  ],
  exports: [LlmClient],
})
export class LlmModule {}
