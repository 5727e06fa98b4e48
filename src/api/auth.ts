import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { UNAUTHORIZED, errorBody } from './errors';

/** How the API authenticates: a bearer token, or nothing (only when disabled on purpose, for local use). */
export type ApiAuth = { token: string } | { disabled: true };

/**
 * Paths answered without a token: the liveness and readiness probes, and the OpenAPI document (what the
 * API accepts, as public as this repository), none of which says anything about runs.
 */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/openapi.json']);

/**
 * An `onRequest` hook: runs before the body is read, so a request without
 * the token gets 401 and nothing else — no parsing, no validation, no run.
 */
export function bearerAuth(auth: ApiAuth) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (OPEN_PATHS.has(request.routeOptions.url ?? '')) return;
    if (isAuthorized(auth, request.headers.authorization)) return;
    await reply.code(401).header('www-authenticate', 'Bearer').send(errorBody(UNAUTHORIZED));
  };
}

/** Whether the `Authorization` header carries the token (always, when authentication is off). */
export function isAuthorized(auth: ApiAuth, header: string | undefined): boolean {
  if ('disabled' in auth) return true;
  const presented =
    header !== undefined && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : undefined;
  // Digests of equal length, compared in constant time: the answer time says nothing about the token.
  return presented !== undefined && timingSafeEqual(digest(presented), digest(auth.token));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
