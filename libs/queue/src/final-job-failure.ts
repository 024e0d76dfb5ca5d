import { KernelError } from '@app/kernel';

/**
 * A durable job's failure that no retry could mend (an index job that split or set aside its outbox entry,
 * docs/architecture.md "A job that kills its worker"): its processor fails the job for good instead of letting
 * the transport run it again. Request-scoped failures are final anyway.
 */
export class FinalJobFailure extends KernelError {}
