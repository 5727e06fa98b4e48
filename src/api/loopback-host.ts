import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../http/errors';
import { ApiError } from '../http/api-error';

/**
 * With authentication off, the API answers only requests whose `Host` names the loopback interface: a web page
 * whose host name an attacker re-points at 127.0.0.1 (DNS rebinding) sends its own host name, and is refused
 * before any route runs.
 */

/** Host names (without their port) that can only mean this machine's loopback interface. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a `Host` header names a loopback host, with any port or none. */
function isLoopbackHost(host: string | undefined): boolean {
  const match = host === undefined ? null : /^(\[[^\]]*\]|[^:]*)(?::\d{1,5})?$/.exec(host.trim());
  return match !== null && LOOPBACK_HOSTS.has((match[1] as string).toLowerCase());
}

/** Installs the `onRequest` hook that answers 403 `host_not_allowed` to every other `Host`. */
export function requireLoopbackHost(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (isLoopbackHost(request.headers.host)) return;
    await reply
      .code(403)
      .send(
        errorBody(
          new ApiError(
            'host_not_allowed',
            'With AGENT_API_AUTH=none the API answers only requests to localhost, 127.0.0.1 or [::1]: ' +
              'use one of those host names, or turn authentication on (AGENT_API_TOKEN) to serve others.',
          ),
        ),
      );
  });
}
