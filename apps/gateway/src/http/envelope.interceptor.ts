import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, Observable } from 'rxjs';
import { RAW_RESPONSE } from './raw-response.decorator';
import { WithTelemetry } from './telemetry.interceptor';

/**
 * Wraps handler results in `{"status":"ok","result":…}` unless the route answers raw (health, metrics);
 * a result that carries telemetry (TelemetryInterceptor) puts it beside `result`.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const raw = this.reflector.getAllAndOverride<boolean>(RAW_RESPONSE, [ctx.getHandler(), ctx.getClass()]);
    return raw
      ? next.handle()
      : next
          .handle()
          .pipe(
            map((result: unknown) =>
              result instanceof WithTelemetry
                ? { status: 'ok', result: result.result, telemetry: result.telemetry }
                : { status: 'ok', result: result ?? null },
            ),
          );
  }
}
