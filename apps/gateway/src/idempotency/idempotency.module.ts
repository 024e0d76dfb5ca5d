import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencySweepService } from './idempotency-sweep.service';

/**
 * Idempotency-Key on write routes (docs/limits-and-security.md, "Retrying a write: Idempotency-Key").
 * Global because the interceptor is used by the controllers of many modules.
 */
@Global()
@Module({
  providers: [IdempotencySweepService, IdempotencyInterceptor],
  exports: [IdempotencySweepService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
