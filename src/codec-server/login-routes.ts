import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorBody, parseBody } from '../http/errors';
import { ApiError } from '../http/api-error';
import { CODEC_SESSION_COOKIE } from '../shared/defaults/codec-server';
import { CODEC_UNAUTHORIZED } from './codec-auth';
import type { LoginThrottle } from './login-throttle';
import { readCookie } from '../http/browser-sessions';
import type { CodecSessions } from './session';

/** The paths of the browser's sign-in, open to every caller. */
export const LOGIN_PATHS = ['/login', '/logout'] as const;

const loginBodySchema = z.object({ token: z.string().min(1).max(1000) });

/**
 * A browser's sign-in to the codec server: `GET /login` a form, `POST /login` checks the token and sets the session
 * cookie (HttpOnly, SameSite=Strict, Secure over https), `POST /logout` revokes it; too many failures answer 429. The
 * web UI sends the cookie with `/decode`, since the same host name on another port is the same site.
 */
export function registerLoginRoutes(
  app: FastifyInstance,
  { token, sessions, throttle }: { token: string; sessions: CodecSessions; throttle: LoginThrottle },
): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get('/login', async (request, reply) => {
    const signedIn = sessions.isValid(readCookie(request.headers.cookie, CODEC_SESSION_COOKIE));
    return reply.type('text/html; charset=utf-8').send(loginPage(signedIn));
  });

  app.post('/login', async (request, reply) => {
    const waitMs = throttle.retryAfterMs(request.ip);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      return reply
        .code(429)
        .header('retry-after', String(seconds))
        .send(
          errorBody(
            new ApiError(
              'too_many_logins',
              `Too many failed sign-ins from this address: try again in ${seconds} s, with the codec server's token.`,
            ),
          ),
        );
    }
    const body = parseBody(loginBodySchema, request.body);
    if (!sameSecret(body.token, token)) {
      throttle.recordFailure(request.ip);
      throw CODEC_UNAUTHORIZED;
    }
    const { value, expiresAt } = sessions.create();
    void reply.header('set-cookie', sessionCookie(request, value, expiresAt - Date.now()));
    if (wantsJson(request)) return { signed_in: true, expires_at: new Date(expiresAt).toISOString() };
    return reply
      .type('text/html; charset=utf-8')
      .send(page('Signed in', `<p>This browser may decode payloads until ${new Date(expiresAt).toISOString()}.</p>`));
  });

  app.post('/logout', async (request, reply) => {
    sessions.revoke(readCookie(request.headers.cookie, CODEC_SESSION_COOKIE));
    void reply.header('set-cookie', sessionCookie(request, '', 0));
    if (wantsJson(request)) return { signed_in: false };
    return reply.type('text/html; charset=utf-8').send(page('Signed out', '<p>This browser no longer decodes.</p>'));
  });
}

function sameSecret(presented: string, token: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(token));
}

function sessionCookie(request: FastifyRequest, value: string, ttlMs: number): string {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${CODEC_SESSION_COOKIE}=${value}; Path=/; Max-Age=${Math.floor(ttlMs / 1000)}; HttpOnly; SameSite=Strict${secure}`;
}

function wantsJson(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').startsWith('application/json');
}

function loginPage(signedIn: boolean): string {
  const state = signedIn
    ? '<p>This browser is signed in.</p><form method="post" action="/logout"><button type="submit">Sign out</button></form>'
    : '<p>Sign in with the codec server token to let the Temporal web UI in this browser show decoded payloads.</p>';
  return page(
    'Codec server sign-in',
    `${state}
<form method="post" action="/login">
  <label>Token <input type="password" name="token" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>
<p>Then, in the web UI's codec server settings, turn on "Include cross-origin credentials"
(open the UI on the same host name as this server: localhost with localhost, 127.0.0.1 with 127.0.0.1).</p>`,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
}
