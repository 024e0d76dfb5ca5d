import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { APP_CONFIG, AppConfig } from '@app/config';
import { Identity } from '@app/kernel';
import { runAsTenantWriter } from '@app/store';

/**
 * Runs a registered user's request (a user or admin key) as that tenant writer, so each of its writes holds the
 * user's row until it commits (docs/limits-and-security.md, "Tenant data on deletion"): a write racing the user's
 * or account's deletion is taken by it or refused, never left for a user or account made again under the ids.
 * Root and dev mode's header identities have no row and are not held.
 */
@Injectable()
export class TenantWriterInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const caller = ctx.switchToHttp().getRequest<{ identity?: Identity }>()?.identity;
    if (!caller || caller.role === 'root' || this.config.auth.mode !== 'api_key') return next.handle();
    const writer = { accountId: caller.accountId, userId: caller.userId };
    // Subscribing inside the scope runs the handler, and all it awaits, inside it.
    return new Observable((sub) => runAsTenantWriter(writer, () => next.handle().subscribe(sub)));
  }
}
