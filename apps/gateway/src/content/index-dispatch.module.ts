import { Module } from '@nestjs/common';
import { IndexDispatchService } from './index-dispatch.service';

/**
 * Handing writes' outbox entries to the index queue and waiting for them: the content routes' module and the
 * Idempotency-Key interceptor (a retry that waits again for a write's indexing) share the one service.
 */
@Module({ providers: [IndexDispatchService], exports: [IndexDispatchService] })
export class IndexDispatchModule {}
