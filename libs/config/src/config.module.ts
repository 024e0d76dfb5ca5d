import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { loadConfig } from './load-config';

/** DI token for the validated {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

// One module object per config, so apps composed into one process share a single provider.
const cache = new WeakMap<AppConfig, DynamicModule>();

@Global()
@Module({})
export class ConfigModule {
  /** Provides the config: the given object (entrypoints, tests) or the process environment parsed once. */
  static forRoot(config?: AppConfig): DynamicModule {
    const hit = config && cache.get(config);
    if (hit) return hit;
    const mod: DynamicModule = {
      module: ConfigModule,
      global: true,
      providers: [{ provide: APP_CONFIG, useFactory: () => config ?? loadConfig(process.env) }],
      exports: [APP_CONFIG],
    };
    if (config) cache.set(config, mod);
    return mod;
  }
}
