import { randomUUID } from 'node:crypto';
import type { PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { answerClientError } from '../http/parser-errors';
import { errorBody, handleError } from '../http/errors';
import { ApiError } from '../http/api-error';
import { limitJsonDepth } from '../http/json-body';
import { CODEC_SERVER_DEFAULTS } from '../shared/defaults/codec-server';
import { codecAuth } from './codec-auth';
import { registerCodecRoutes } from './codec-routes';
import { allowOrigins } from './cors';
import { LOGIN_PATHS, registerLoginRoutes } from './login-routes';
import { LoginThrottle } from './login-throttle';
import { CodecSessions } from './session';

export { UNOPENED_KEYS_HEADER } from './codec-routes';

/** What the codec server needs. */
export interface CodecServerOptions {
  /** The codec: the workers' own keys. */
  codec: PayloadCodec;
  /** The bearer token, which a browser also signs in with. */
  token: string;
  /** The web UI origins a browser may call from. */
  corsOrigins: readonly string[];
  /** Largest request body, in bytes. @default 8 MiB (`CODEC_SERVER_DEFAULTS.bodyLimitBytes`) */
  bodyLimit?: number;
  /** Most payloads in one request. @default 1000 (`CODEC_SERVER_DEFAULTS.maxPayloads`) */
  maxPayloads?: number;
  /** How long a browser sign-in lasts. @default 12 h (`CODEC_SERVER_DEFAULTS.sessionTtlMs`) */
  sessionTtlMs?: number;
  /** Failed sign-ins per client address and window. @default 5 a minute (`CODEC_SERVER_DEFAULTS.loginFailures`) */
  loginLimit?: { failures: number; windowMs: number };
  /** Fastify's pino logger options; false for none. @default false */
  logger?: FastifyServerOptions['logger'];
}

/**
 * The codec server: Temporal's remote codec protocol over the workers' payload codec, for the web UI (CORS from
 * `corsOrigins`, the `/login` cookie) and the CLI (a bearer token), with the HTTP API's error shape.
 */
export function buildCodecServer(options: CodecServerOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? CODEC_SERVER_DEFAULTS.bodyLimitBytes,
    genReqId: () => `req-${randomUUID().slice(0, 8)}`,
    clientErrorHandler: answerClientError,
  });
  limitJsonDepth(app);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(errorBody(new ApiError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)));
  });
  allowOrigins(app, options.corsOrigins);
  const sessions = new CodecSessions(
    options.sessionTtlMs ?? CODEC_SERVER_DEFAULTS.sessionTtlMs,
    CODEC_SERVER_DEFAULTS.maxSessions,
  );
  const throttle = new LoginThrottle({
    failures: options.loginLimit?.failures ?? CODEC_SERVER_DEFAULTS.loginFailures,
    windowMs: options.loginLimit?.windowMs ?? CODEC_SERVER_DEFAULTS.loginWindowMs,
    maxAddresses: CODEC_SERVER_DEFAULTS.loginTrackedAddresses,
  });
  app.addHook('onRequest', codecAuth(options.token, sessions, new Set([...LOGIN_PATHS, '/healthz'])));
  app.get('/healthz', async () => ({ ok: true }));
  registerLoginRoutes(app, { token: options.token, sessions, throttle });
  registerCodecRoutes(app, {
    codec: options.codec,
    ...(options.maxPayloads === undefined ? {} : { maxPayloads: options.maxPayloads }),
  });
  return app;
}
