import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { from, Observable, of, switchMap } from 'rxjs';
import { IDEMPOTENCY_HEADER, Identity, PendingIndexWait } from '@app/kernel';
import { runInWriteScope, WriteScope } from '@app/store';
import { ApiErrors } from '../http/api-errors.decorator';
import { IndexDispatchService } from '../content/index-dispatch.service';
import { IdempotencyAttempts } from './idempotency-attempts.service';
import { requestFingerprint } from './fingerprint';
import { IdempotentRequest } from './idempotent-request';

/**
 * Takes the request's Idempotency-Key before the handler runs (docs/limits-and-security.md, "Retrying a
 * write: Idempotency-Key"): a first attempt runs inside a write scope, so its first write marks the key
 * in the same transaction; a retry of a finished attempt is answered with the kept reply by the reply
 * hook (idempotent-replies.ts), except a 504 whose write was stored: its retry waits for that write's
 * indexing again and answers as the route would have; a retry of a running one, or the key sent with another
 * request, is refused. Without the header the route runs as before.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly attempts: IdempotencyAttempts,
    private readonly dispatcher: IndexDispatchService,
  ) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<IdempotentRequest & { identity: Identity }>();
    const header = req.headers[IDEMPOTENCY_HEADER];
    if (header === undefined) return next.handle();
    const key = Array.isArray(header) ? header.join(', ') : header;
    return from(this.begin(req, key)).pipe(
      switchMap((step) =>
        'scope' in step
          ? // Subscribing inside the scope runs the handler, and all it awaits, inside it.
            new Observable((sub) => runInWriteScope(step.scope, () => next.handle().subscribe(sub)))
          : 'resume' in step
            ? from(this.dispatcher.resume(step.resume))
            : of(null),
      ),
    );
  }

  /**
   * The scope to run the handler in; or, for a retry of a write whose wait for its indexing ran out, that wait
   * to take up again; or nothing, when the reply hook answers with a kept reply.
   */
  private async begin(
    req: IdempotentRequest & { identity: Identity },
    key: string,
  ): Promise<{ scope: WriteScope } | { resume: PendingIndexWait } | { replay: true }> {
    const owner = { accountId: req.identity.accountId, userId: req.identity.userId };
    const start = await this.attempts.start(owner, key, requestFingerprint(req));
    if (start.kind === 'refused') {
      req.idempotency = { refused: start.reason };
      throw start.error;
    }
    if (start.kind === 'replay') {
      const { resume, holder } = start.reply;
      if (resume && holder) {
        req.idempotency = { resume: { owner, key, holder } };
        return { resume };
      }
      req.idempotency = { replay: start.reply };
      return { replay: true };
    }
    req.idempotency = { claim: start.claim, scope: start.scope };
    return { scope: start.scope };
  }
}

/** The route applies a retry sent with the same Idempotency-Key at most once. */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        "Applies a retried request at most once: a retry with the same key and request gets the first reply again (`Idempotent-Replayed: true`); after a 504 whose write was stored (`details.stored`), the retry waits for that write's indexing again and answers as the write would have. Printable ASCII; kept MUNINN_IDEMPOTENCY_TTL_S.",
      schema: { type: 'string', minLength: 1 },
    }),
    ApiErrors(409, 422),
  );
