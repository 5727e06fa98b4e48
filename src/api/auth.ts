import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BrowserSessions } from '../http/browser-sessions';
import { consolePrincipal, type ConsoleSession } from './console/console-session';
import { UNAUTHORIZED, errorBody } from '../http/errors';
import { ApiError } from '../http/api-error';
import type { ApiAuth } from '../config/api';
import type { Principal } from '../config/principals';
import { authenticate, principalsOf } from '../http/bearer-token';
import { allows, routeKey, scopeOfRoute } from './scopes';

export type { ApiAuth } from '../config/api';
export { authenticate, isAuthorized, principalsOf } from '../http/bearer-token';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent the request; undefined on open routes and when authentication is off. */
    principal: Principal | undefined;
  }
}

/**
 * Authentication and authorisation before any route: every route's scope must be in `scopes.ts`, and an `onRequest`
 * hook answers 401 or 403 before the body is read. The principal is on `request.principal`; with `consoleSessions`, a
 * console session's cookie may stand in for `Authorization`.
 */
export function registerAuth(
  app: FastifyInstance,
  auth: ApiAuth,
  consoleSessions?: BrowserSessions<ConsoleSession>,
): void {
  const principals = principalsOf(auth);
  app.decorateRequest('principal', undefined);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (scopeOfRoute(method, route.url) === undefined)
        throw new Error(
          `The route ${routeKey(method, route.url)} has no scope: add it to ROUTE_SCOPES (or OPEN_ROUTES) in src/api/scopes.ts.`,
        );
    }
  });
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const url = request.routeOptions.url;
    // Unknown routes (no url) still need a token: a 404 says which paths exist.
    const needed = url === undefined ? undefined : scopeOfRoute(request.method, url);
    if (needed === null || 'disabled' in auth) return;
    const principal =
      request.headers.authorization === undefined && consoleSessions !== undefined
        ? consolePrincipal(consoleSessions, request, url)
        : authenticate(principals, request.headers.authorization);
    if (principal === undefined) {
      await reply.code(401).header('www-authenticate', 'Bearer').send(errorBody(UNAUTHORIZED));
      return;
    }
    request.principal = principal;
    if (needed !== undefined && !allows(principal.scopes, needed)) {
      await reply
        .code(403)
        .send(
          errorBody(
            new ApiError(
              'forbidden',
              `${request.method} ${url} needs the scope "${needed}"; principal "${principal.name}" holds ${[...principal.scopes].map((scope) => `"${scope}"`).join(', ')}.`,
            ),
          ),
        );
    }
  });
}
