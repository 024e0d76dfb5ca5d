import { AppConfig } from './app-config';
import { ConfigError, loadConfig } from './load-config';

const LEVELS = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;

/** Loads config for a process entrypoint; on a bad value prints what is wrong and exits 1. */
export function bootConfig(): AppConfig {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`muninn: ${err.message}\n`);
    process.exit(1);
  }
}

/** The Nest logger levels at or above the configured one. */
export function logLevels(level: AppConfig['logLevel']): AppConfig['logLevel'][] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1) as AppConfig['logLevel'][];
}
