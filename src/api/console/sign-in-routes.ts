import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { LoginThrottle } from '../../codec-server/login-throttle';
import { CONSOLE_DEFAULTS, CONSOLE_SESSION_COOKIE } from '../../shared/defaults/console';
import { authenticate, principalsOf, type ApiAuth } from '../auth';
import { readCookie, type BrowserSessions } from '../../http/browser-sessions';
import { UNAUTHORIZED, errorBody, parseBody } from '../../http/errors';
import { ApiError } from '../../http/api-error';
import { API_SCOPE_NAMES, allows, type ApiScope } from '../scopes';
import { consoleCookie, fromOwnOrigin, newCsrfToken, type ConsoleSession } from './console-session';

const signInBody = z.strictObject({ token: z.string().min(1).max(1000) });

/** What the console learns of its session: who, what they may do, the CSRF token, and where Temporal's UI is. */
interface SessionAnswer {
  principal: string | null;
  scopes: ApiScope[];
  csrf_token: string;
  expires_at: string | null;
  namespace: string;
  temporal_ui_url: string;
}

/** What the sign-in routes need. */
export interface SignInDeps {
  auth: ApiAuth;
  sessions: BrowserSessions<ConsoleSession>;
  namespace: string;
  temporalUiUrl: string;
  loginLimit?: { failures: number; windowMs: number };
}

/**
 * The console's sign-in, session and sign-out routes: a token buys an HttpOnly, SameSite=Strict session cookie and a
 * CSRF token; sign-out revokes the session server-side; too many failures answer 429.
 */
export function registerSignInRoutes(app: FastifyInstance, deps: SignInDeps): void {
  const principals = principalsOf(deps.auth);
  const throttle = new LoginThrottle({
    failures: deps.loginLimit?.failures ?? CONSOLE_DEFAULTS.loginFailures,
    windowMs: deps.loginLimit?.windowMs ?? CONSOLE_DEFAULTS.loginWindowMs,
    maxAddresses: CONSOLE_DEFAULTS.loginTrackedAddresses,
  });
  const answer = (session: ConsoleSession | undefined, expiresAt: number | undefined): SessionAnswer => ({
    principal: session?.principal.name ?? null,
    scopes:
      session === undefined
        ? [...API_SCOPE_NAMES]
        : API_SCOPE_NAMES.filter((scope) => allows(session.principal.scopes, scope)),
    csrf_token: session?.csrfToken ?? '',
    expires_at: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
    namespace: deps.namespace,
    temporal_ui_url: deps.temporalUiUrl,
  });

  app.post('/console/api/sign-in', async (request, reply) => {
    if (!fromOwnOrigin(request))
      throw new ApiError('console_csrf', "The console's sign-in is accepted only from the API's own origin.");
    if ('disabled' in deps.auth) return answer(undefined, undefined);
    const waitMs = throttle.retryAfterMs(request.ip);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      void reply.header('retry-after', String(seconds));
      throw new ApiError(
        'too_many_logins',
        `Too many failed sign-ins from this address: try again in ${seconds} s, with a principal's token.`,
      );
    }
    const body = parseBody(signInBody, request.body);
    const principal = authenticate(principals, `Bearer ${body.token}`);
    if (principal === undefined) {
      throttle.recordFailure(request.ip);
      throw UNAUTHORIZED;
    }
    const session: ConsoleSession = { principal, csrfToken: newCsrfToken() };
    const { value, expiresAt } = deps.sessions.open(session);
    void reply.header('set-cookie', consoleCookie(request, value, expiresAt - Date.now()));
    request.log.info({ audit: 'console-sign-in', principal: principal.name }, 'signed in to the console');
    return answer(session, expiresAt);
  });

  app.get('/console/api/session', async (request, reply) => {
    if ('disabled' in deps.auth) return answer(undefined, undefined);
    const found = deps.sessions.subjectOf(readCookie(request.headers.cookie, CONSOLE_SESSION_COOKIE));
    if (found === undefined) return reply.code(401).send(errorBody(UNAUTHORIZED));
    return answer(found.subject, found.expiresAt);
  });

  app.post('/console/api/sign-out', async (request, reply: FastifyReply) => {
    if (!fromOwnOrigin(request))
      throw new ApiError('console_csrf', "The console's sign-out is accepted only from the API's own origin.");
    signOut(deps.sessions, request);
    void reply.header('set-cookie', consoleCookie(request, '', 0));
    return { signed_in: false };
  });
}

function signOut(sessions: BrowserSessions<ConsoleSession>, request: FastifyRequest): void {
  sessions.revoke(readCookie(request.headers.cookie, CONSOLE_SESSION_COOKIE));
}
