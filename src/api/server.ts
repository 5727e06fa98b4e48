import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { bearerAuth, type ApiAuth } from './auth';
import { registerChatRoutes, type AgentDefaults } from './chat-routes';
import { ApiError, errorBody, handleError } from './errors';
import { registerRunRoutes } from './run-routes';

export type { ApiAuth } from './auth';
export type { AgentDefaults } from './chat-routes';

/** Largest request body accepted unless `AGENT_API_BODY_LIMIT` says otherwise: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export interface ApiServerOptions {
  client: Client;
  taskQueue: string;
  auth: ApiAuth;
  defaults: AgentDefaults;
  /** @default {@link DEFAULT_BODY_LIMIT} */
  bodyLimit?: number;
  /** Fastify's pino logger options; false for none. @default false */
  logger?: FastifyServerOptions['logger'];
  /** Keep-alive comments on idle event streams. @default 15 s */
  keepAliveMs?: number;
}

/**
 * The HTTP API: seed 000's chat endpoints on durable conversations, and
 * runs to start, follow (Server-Sent Events), steer and list. Fastify,
 * because it validates, limits and logs (pino) with little code of ours,
 * and answers JSON errors from one handler.
 */
export function buildApiServer(options: ApiServerOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // A chat request lasts as long as its turn, which may wait for a person: no server-side cut-off.
    requestTimeout: 0,
    genReqId: () => `req-${randomUUID().slice(0, 8)}`,
  });
  app.addHook('onRequest', bearerAuth(options.auth));
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorBody(new ApiError(404, 'route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)));
  });
  app.get('/healthz', async () => ({ ok: true }));
  registerChatRoutes(app, { client: options.client, taskQueue: options.taskQueue, defaults: options.defaults });
  registerRunRoutes(app, { client: options.client, taskQueue: options.taskQueue, ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }) });
  return app;
}
