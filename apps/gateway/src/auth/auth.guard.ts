import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { performance } from 'node:perf_hooks';
import { IdentityService } from './identity.service';
import { PUBLIC_ROUTE } from './public.decorator';

type WithIdentity = FastifyRequest & { identity?: unknown; authMs?: number };

/**
 * Resolves the caller's identity for every non-public route and attaches it to the request. The
 * request gate (an `onRequest` hook) normally did so already, before the body was read; this guard
 * covers any route the gate let through without one.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly identities: IdentityService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [ctx.getHandler(), ctx.getClass()])) return true;
    const req = ctx.switchToHttp().getRequest<WithIdentity>();
    if (req.identity === undefined) await authenticateRequest(this.identities, req);
    return true;
  }
}

/**
 * Resolves the identity of a Fastify request and attaches it as `req.identity`, and the time that took
 * as `req.authMs` (a context request's `auth` stage, docs/architecture.md "Stage timings").
 */
export async function authenticateRequest(identities: IdentityService, req: FastifyRequest): Promise<void> {
  const started = performance.now();
  const token = (req.query as { token?: unknown } | undefined)?.token;
  (req as WithIdentity).identity = await identities.resolve({
    path: req.url.split('?')[0],
    uploadToken: typeof token === 'string' ? token : undefined,
    remoteAddress: req.socket.remoteAddress,
    header: (name) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    },
  });
  (req as WithIdentity).authMs = performance.now() - started;
}
