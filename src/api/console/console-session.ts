import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { BrowserSessions, readCookie } from '../../http/browser-sessions';
import { ApiError } from '../../http/api-error';
import type { Principal } from '../../config/principals';
import { CONSOLE_CSRF_HEADER, CONSOLE_DEFAULTS, CONSOLE_SESSION_COOKIE } from '../../shared/defaults/console';

/** Who signed in to a console session, and the CSRF token its requests carry. */
export interface ConsoleSession {
  principal: Principal;
  csrfToken: string;
}

/** The console's sessions of this API process. */
export function newConsoleSessions(ttlMs: number = CONSOLE_DEFAULTS.sessionTtlMs): BrowserSessions<ConsoleSession> {
  return new BrowserSessions<ConsoleSession>(ttlMs, CONSOLE_DEFAULTS.maxSessions, 'agent-console-session');
}

/** A fresh CSRF token for a new session. */
export function newCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The routes the console's cookie authenticates: the run routes and the console's own. */
function cookieAccepted(routeUrl: string): boolean {
  return routeUrl === '/runs' || routeUrl.startsWith('/runs/') || routeUrl.startsWith('/console/api/');
}

/**
 * The principal of a request carrying the console's cookie: only on the console's routes, with the session's CSRF
 * header and from the API's own origin. Undefined without the cookie; `console_csrf` or `unauthorized` otherwise.
 */
export function consolePrincipal(
  sessions: BrowserSessions<ConsoleSession>,
  request: FastifyRequest,
  routeUrl: string | undefined,
): Principal | undefined {
  const cookie = readCookie(request.headers.cookie, CONSOLE_SESSION_COOKIE);
  if (cookie === undefined || cookie === '') return undefined;
  const session = sessions.subjectOf(cookie)?.subject;
  if (session === undefined) return undefined;
  if (routeUrl === undefined || !cookieAccepted(routeUrl))
    throw new ApiError('console_csrf', 'The console session authenticates only the /runs routes: send a bearer token.');
  const presented = request.headers[CONSOLE_CSRF_HEADER];
  if (typeof presented !== 'string' || !sameText(presented, session.csrfToken))
    throw new ApiError(
      'console_csrf',
      `A request with the console's session cookie must carry its CSRF token in ${CONSOLE_CSRF_HEADER} (the console sends it).`,
    );
  if (!fromOwnOrigin(request))
    throw new ApiError('console_csrf', "The console's session is accepted only from the API's own origin.");
  return session.principal;
}

/** Whether the browser's `Origin` and `Sec-Fetch-Site`, where it sends them, say the request comes from this server's pages. */
export function fromOwnOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return origin === `${request.protocol}://${request.headers.host ?? ''}`;
}

/** The `Set-Cookie` value of a console session (or of its removal, with an empty value and no lifetime). */
export function consoleCookie(request: FastifyRequest, value: string, ttlMs: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${CONSOLE_SESSION_COOKIE}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(ttlMs / 1000))}; HttpOnly; SameSite=Strict${secure}`;
}

function sameText(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
