import { LoggerService, LogLevel } from '@nestjs/common';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import { stdTimeFunctions } from 'pino';
import { AppConfig, logLevels } from '@app/config';
import { currentRequestId } from './job-context';

const PINO_LEVEL: Record<AppConfig['logLevel'], string> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/**
 * The process's logger (docs/operations.md "Logs"): with `MUNINN_LOG_FORMAT=json` (the default) one
 * JSON object per line through pino (nestjs-pino's Nest logger), each carrying the app name and the
 * request id of the work in progress, whether an HTTP request in the gateway or a job in a worker;
 * with `text`, Nest's console format at the configured levels, for local reading.
 */
export function appLogger(config: AppConfig, app: string): LoggerService | LogLevel[] {
  if (config.logFormat !== 'json') return logLevels(config.logLevel);
  const pino = new PinoLogger({
    pinoHttp: {
      level: PINO_LEVEL[config.logLevel],
      base: { app, pid: process.pid },
      messageKey: 'msg',
      // Level names and ISO times read without a lookup table.
      formatters: { level: (label: string) => ({ level: label }) },
      timestamp: stdTimeFunctions.isoTime,
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
    },
  });
  return new NestPinoLogger(pino, {});
}
