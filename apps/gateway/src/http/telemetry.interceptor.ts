import { randomUUID } from 'node:crypto';
import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, Observable } from 'rxjs';
import { pyTruthy } from '@app/kernel';

const TELEMETRY_OPERATION = 'muninn:telemetry-operation';

/** A handler result that carries an envelope `telemetry` beside `result` (see EnvelopeInterceptor). */
export class WithTelemetry {
  constructor(
    readonly result: unknown,
    readonly telemetry: { id: string; summary: Record<string, unknown> },
  ) {}
}

/**
 * The body's optional `telemetry` (docs/sessions.md "Telemetry"): `true`, or an object whose `summary`
 * is not `false`, asks for it; anything falsy (or absent) does not.
 */
export function telemetryRequested(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const t = (body as Record<string, unknown>).telemetry;
  if (t !== null && typeof t === 'object' && !Array.isArray(t)) return (t as Record<string, unknown>).summary !== false;
  return pyTruthy(t);
}

/** Times the handler and, when the body asked for it, answers `telemetry:{id, summary}` beside `result`. */
@Injectable()
export class TelemetryInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body: unknown = ctx.switchToHttp().getRequest<{ body?: unknown }>().body;
    if (!telemetryRequested(body)) return next.handle();
    const operation = this.reflector.get<string>(TELEMETRY_OPERATION, ctx.getHandler());
    const started = process.hrtime.bigint();
    return next.handle().pipe(
      map((result: unknown) => {
        const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
        const summary = { operation, status: 'ok', duration_ms: Math.round(durationMs * 1000) / 1000 };
        return new WithTelemetry(result ?? null, { id: randomUUID(), summary });
      }),
    );
  }
}

/** The route honours the body's `telemetry` field, reporting it as `operation`. */
export const Telemetry = (operation: string) =>
  applyDecorators(SetMetadata(TELEMETRY_OPERATION, operation), UseInterceptors(TelemetryInterceptor));
