import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorBody } from './errors';

/** How the API authenticates: a bearer token, or nothing (only when disabled on purpose, for local use). */
export type ApiAuth = { token: string } | { disabled: true };

/** Paths answered without a token: a liveness probe that says nothing about runs. */
const OPEN_PATHS = new Set(['/healthz']);

/**
 * An `onRequest` hook: runs before the body is read, so a request without
 * the token gets 401 and nothing else — no parsing, no validation, no run.
 */
export function bearerAuth(auth: ApiAuth) {
  if ('disabled' in auth) return async () => undefined;
  const expected = digest(auth.token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (OPEN_PATHS.has(request.routeOptions.url ?? '')) return;
    const header = request.headers.authorization;
    const presented = header !== undefined && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '').trim() : undefined;
    // Digests of equal length, compared in constant time: the answer time says nothing about the token.
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return;
    const error = new ApiError(401, 'unauthorized', 'Missing or wrong bearer token: send Authorization: Bearer <AGENT_API_TOKEN>.');
    await reply.code(401).header('www-authenticate', 'Bearer').send(errorBody(error));
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
