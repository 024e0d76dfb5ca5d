import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Identity } from '@app/kernel';

/** The identity the auth guard resolved for this request. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): Identity => {
  return (ctx.switchToHttp().getRequest() as { identity: Identity }).identity;
});
