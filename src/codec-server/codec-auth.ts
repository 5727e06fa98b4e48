import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../http/errors';
import { ApiError } from '../http/api-error';
import { isAuthorized } from '../http/bearer-token';
import { CODEC_SESSION_COOKIE } from '../shared/defaults/codec-server';
import { readCookie } from '../http/browser-sessions';
import type { CodecSessions } from './session';

/** The answer to a request without a valid credential; it says how to get one, never what was sent. */
export const CODEC_UNAUTHORIZED = new ApiError(
  'unauthorized',
  'Missing or wrong codec server credential: send Authorization: Bearer <AGENT_CODEC_SERVER_TOKEN> ' +
    "(the CLI's --codec-auth), or sign in at this server's /login and let the web UI include cross-origin credentials.",
);

/**
 * Guards every path but `open` before the body is read: the bearer token, or a signed-in browser's session cookie;
 * else 401 with nothing parsed. One function, so a per-principal scope can replace it.
 */
export function codecAuth(token: string, sessions: CodecSessions, open: ReadonlySet<string>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.method === 'OPTIONS' || open.has(request.routeOptions.url ?? '')) return;
    if (isAuthorized({ token }, request.headers.authorization)) return;
    if (sessions.isValid(readCookie(request.headers.cookie, CODEC_SESSION_COOKIE))) return;
    await reply.code(401).header('www-authenticate', 'Bearer').send(errorBody(CODEC_UNAUTHORIZED));
  };
}
