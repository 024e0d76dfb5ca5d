import { Global, Module } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyAttempts } from './idempotency-attempts.service';
import { IdempotencySweepService } from './idempotency-sweep.service';
import { IndexDispatchModule } from '../content/index-dispatch.module';

/**
 * Idempotency-Key on write routes (docs/limits-and-security.md, "Retrying a write: Idempotency-Key").
 * Global because the interceptor is used by the controllers of many modules; it waits again for a write's
 * indexing through the index dispatcher.
 */
@Global()
@Module({
  imports: [IndexDispatchModule],
  providers: [IdempotencySweepService, IdempotencyAttempts, IdempotencyInterceptor],
  // The interceptor is built in each controller's module, so what it needs is exported from here.
  exports: [IdempotencySweepService, IdempotencyAttempts, IdempotencyInterceptor, IndexDispatchModule],
})
export class IdempotencyModule {}
