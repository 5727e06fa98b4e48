import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CODEC_SERVER_DEFAULTS } from '../shared/defaults/codec-server';
import { errorBody } from '../http/errors';
import { ApiError } from '../http/api-error';
import { UNOPENED_KEYS_HEADER } from './codec-routes';

/**
 * The request headers a page may send: the web UI sends `Content-Type` and `X-Namespace`, and with "pass access
 * token" on, `Authorization` and `Authorization-Extras`.
 */
const ALLOWED_HEADERS = 'Content-Type, X-Namespace, Authorization, Authorization-Extras';

/**
 * Cross-origin access for the Temporal web UI, written out because @fastify/cors would only omit headers where this
 * answers 403 `origin_not_allowed`. A request with an `Origin` must come from `origins` or the server's own pages;
 * without one (CLI, curl) it goes on to authentication. Credentials are allowed and the origin echoed, never `*`.
 */
export function allowOrigins(app: FastifyInstance, origins: readonly string[]): void {
  const allowed = new Set(origins);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (origin === ownOrigin(request)) return;
    if (!allowed.has(origin)) {
      await reply
        .code(403)
        .send(
          errorBody(
            new ApiError(
              'origin_not_allowed',
              `Requests from ${JSON.stringify(origin.slice(0, 200))} are not allowed: add the web UI's origin to AGENT_CODEC_CORS_ORIGINS.`,
            ),
          ),
        );
      return;
    }
    void reply
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-credentials', 'true')
      .header('access-control-expose-headers', UNOPENED_KEYS_HEADER)
      .header('vary', 'Origin');
  });
  // The preflight a browser sends before a cross-origin POST with a JSON body; the hook above has checked its origin.
  app.options('/*', async (request, reply) => {
    if (request.headers['access-control-request-method'] === undefined || request.headers.origin === undefined) {
      throw new ApiError('route_not_found', `No route OPTIONS ${request.url.split('?')[0]}.`);
    }
    return reply
      .code(204)
      .header('access-control-allow-methods', 'POST')
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', String(CODEC_SERVER_DEFAULTS.preflightMaxAgeSeconds))
      .send();
  });
}

/** The origin of the server as this request reached it (its sign-in page posts from there). */
function ownOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host ?? ''}`;
}
