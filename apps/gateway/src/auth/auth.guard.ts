import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { IdentityService } from './identity.service';
import { PUBLIC_ROUTE } from './public.decorator';

/** Resolves the caller's identity for every non-public route and attaches it to the request. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector, private readonly identities: IdentityService) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [ctx.getHandler(), ctx.getClass()])) return true;
    const req = ctx.switchToHttp().getRequest<FastifyRequest & { identity?: unknown }>();
    req.identity = await this.identities.resolve({
      path: req.url.split('?')[0],
      remoteAddress: req.socket.remoteAddress,
      header: (name) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v[0] : v;
      },
    });
    return true;
  }
}
