import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { registerCodecRoutes } from '../codec-server/codec-routes';
import { API_DEFAULTS } from '../shared/defaults/api';
import { isAuthorized, registerAuth, type ApiAuth } from './auth';
import { requireLoopbackHost } from './loopback-host';
import { registerChatRoutes, type AgentDefaults } from './chat-routes';
import { answerClientError } from '../http/parser-errors';
import { handleError, toApiError } from './agent-client-errors';
import { UNAUTHORIZED, errorBody } from '../http/errors';
import { ApiError } from '../http/api-error';
import { limitJsonDepth } from '../http/json-body';
import { redactingLoggerOptions } from './log-redaction';
import { openApiDocument } from './openapi/document';
import { registerRunRoutes } from './run-routes';
import { RunSubscriptions } from './run-subscriptions';
import { registerConsole, type ConsoleOptions } from './console/register-console';
import { newConsoleSessions } from './console/console-session';
import { registerUiChatRoutes } from './ui-chat/ui-chat-routes';
import { probeTemporal } from './temporal-deadline';
import { traceContextHook } from '../tracing/http-trace-context';

export type { ApiAuth } from './auth';
export type { AgentDefaults } from './chat-routes';

export interface ApiServerOptions {
  client: Client;
  taskQueue: string;
  auth: ApiAuth;
  defaults: AgentDefaults;
  /** The tools callers may name (`AGENT_API_ALLOWED_TOOLS`); another is refused with 403. @default every tool */
  allowedTools?: readonly string[];
  /** The models callers may name (`AGENT_API_ALLOWED_MODELS`); another is refused with 403. @default every model */
  allowedModels?: readonly string[];
  /** Largest request body, in bytes. @default 1 MiB (`API_DEFAULTS.bodyLimitBytes`) */
  bodyLimit?: number;
  /** Fastify's pino logger options; false for none. Tokens are redacted from every line (`log-redaction.ts`). @default false */
  logger?: FastifyServerOptions['logger'];
  /** Keep-alive comments on idle event streams. @default 15 s (`API_DEFAULTS.keepAliveMs`) */
  keepAliveMs?: number;
  /**
   * A payload codec to serve Temporal's codec protocol with, at `POST /codec/encode` and `POST /codec/decode`,
   * behind the API's own authentication (for the CLI's `--codec-endpoint`; the web UI uses `agent-runner codec-server`).
   * @default none: no codec routes
   */
  codec?: PayloadCodec;
  /**
   * Start runs under a request's W3C `traceparent` (the client must carry Temporal's OpenTelemetry interceptor,
   * as `connectAgentClient` does when tracing is on). @default false
   */
  traceContext?: boolean;
  /**
   * Serve the console at `/console/` (docs/guide/console.md): its sign-in exchanges a principal's token for a session
   * cookie, which then authenticates the `/runs` routes together with the session's CSRF header. @default none
   */
  console?: ConsoleOptions;
  /**
   * Sign `POST /ui/chat`'s approval requests and refuse answers without a valid signature, as the AI SDK's
   * `experimental_toolApprovalSecret` does (`AGENT_UI_APPROVAL_SECRET`). @default none: answers are bound by id only
   */
  uiApprovalSecret?: string;
}

/**
 * The HTTP API: chat endpoints on durable conversations, and runs to start, follow, steer and list.
 */
export function buildApiServer(options: ApiServerOptions): FastifyInstance {
  const app = Fastify({
    logger: redactingLoggerOptions(options.logger, options.auth),
    bodyLimit: options.bodyLimit ?? API_DEFAULTS.bodyLimitBytes,
    // A chat request lasts as long as its turn, which may wait for a person: no server-side cut-off.
    requestTimeout: 0,
    genReqId: () => `req-${randomUUID().slice(0, 8)}`,
    // Run ids in paths hold a context id (up to 200 characters) and more; the router's default cap is 100.
    routerOptions: { maxParamLength: API_DEFAULTS.pathParameterChars },
    // Errors the router raises before any hook (a malformed URL, say): the token is checked first here too.
    frameworkErrors: (error, request, reply) =>
      answerFrameworkError(options.auth, error, request as unknown as FastifyRequest, reply as unknown as FastifyReply),
    // Requests Node's HTTP parser refuses (a raw space in the path, a NUL in a header): the API's error shape too.
    clientErrorHandler: answerClientError,
  });
  limitJsonDepth(app);
  if ('disabled' in options.auth) requireLoopbackHost(app);
  const consoleSessions = options.console === undefined ? undefined : newConsoleSessions();
  registerAuth(app, options.auth, consoleSessions);
  if (options.traceContext === true) app.addHook('onRequest', traceContextHook());
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send(errorBody(new ApiError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)));
  });
  // Liveness: the process answers. Readiness: Temporal answers too, so a load balancer can route around an API that cannot work.
  app.get('/healthz', async () => ({ ok: true }));
  app.get('/readyz', async () => {
    await probeTemporal(options.client);
    return { status: 'ready' };
  });
  // The document of every route, built from the schemas they validate with.
  app.get('/openapi.json', async () => openApiDocument());
  const allowed = {
    ...(options.allowedTools === undefined ? {} : { allowedTools: options.allowedTools }),
    ...(options.allowedModels === undefined ? {} : { allowedModels: options.allowedModels }),
  };
  registerChatRoutes(app, {
    client: options.client,
    taskQueue: options.taskQueue,
    defaults: options.defaults,
    ...allowed,
  });
  const subscriptions = new RunSubscriptions(options.client);
  registerRunRoutes(app, {
    client: options.client,
    taskQueue: options.taskQueue,
    subscriptions,
    defaultTools: options.defaults.tools,
    ...allowed,
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
  });
  if (options.console !== undefined && consoleSessions !== undefined)
    registerConsole(app, {
      client: options.client,
      auth: options.auth,
      sessions: consoleSessions,
      subscriptions,
      options: options.console,
      ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    });
  registerUiChatRoutes(app, {
    client: options.client,
    taskQueue: options.taskQueue,
    subscriptions,
    defaults: options.defaults,
    ...allowed,
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    ...(options.uiApprovalSecret === undefined ? {} : { approvalSecret: options.uiApprovalSecret }),
  });
  if (options.codec !== undefined) registerCodecRoutes(app, { codec: options.codec, prefix: '/codec' });
  return app;
}

/** Answers an error the router raised before any hook ran: 401 without the token, else the error in the API's shape. */
function answerFrameworkError(auth: ApiAuth, error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (!isAuthorized(auth, request.headers.authorization)) {
    void reply.code(401).header('www-authenticate', 'Bearer').send(errorBody(UNAUTHORIZED));
    return;
  }
  const answer = toApiError(error, request.id);
  void reply.code(answer.statusCode).send(errorBody(answer));
}
