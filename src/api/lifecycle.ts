import type { FastifyInstance } from 'fastify';
import { API_DEFAULTS } from '../shared/defaults/api';
import { formatSeconds } from '../shared/duration';
import type { ApiConfig } from '../config/api';

/**
 * Starting and stopping the API process, shared by `npm run api` and
 * `npm start`: listening, the start-up line's words on authentication, the
 * signals that stop it, and a shutdown that lets requests finish.
 */

/** Listens as configured and answers the base URL. */
export async function listen(app: FastifyInstance, config: Pick<ApiConfig, 'host' | 'port'>): Promise<string> {
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
}

/** How the API authenticates, for the start-up line (never the token). */
export function describeAuth(config: ApiConfig): string {
  if ('disabled' in config.auth) {
    const local = config.host === '127.0.0.1' || config.host === 'localhost' || config.host === '::1';
    return `authentication OFF (AGENT_API_AUTH=none)${local ? '' : ` on a non-local address (${config.host}): anyone who can reach it can run agents`}`;
  }
  const principals = config.auth.principals?.length ?? 0;
  const sources = [
    ...(config.auth.token === undefined ? [] : ['AGENT_API_TOKEN']),
    ...(principals === 0 ? [] : [`${principals} principal${principals === 1 ? '' : 's'} of AGENT_API_PRINCIPALS_FILE`]),
  ];
  return `bearer token from ${sources.join(' or ')} required`;
}

/** Resolves on the first SIGINT or SIGTERM; later ones are ignored so shutdown is not cut short. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (received) return;
        received = true;
        resolve(signal);
      });
    }
  });
}

/**
 * Stops taking requests, ends event streams, and gives requests in progress
 * `API_DEFAULTS.closeGraceMs` to answer; the runs behind the rest go on in Temporal.
 */
export async function closeApi(app: FastifyInstance, say: (line: string) => void): Promise<void> {
  say(
    `Stopping the API: event streams end now; chat requests in progress get ${formatSeconds(API_DEFAULTS.closeGraceMs)} to answer (their runs go on in Temporal either way).`,
  );
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'timeout'>(
    (resolve) => (timer = setTimeout(() => resolve('timeout'), API_DEFAULTS.closeGraceMs)),
  );
  const outcome = await Promise.race([app.close().then(() => 'closed' as const), graceOver]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    app.server.closeAllConnections();
    say(
      'Requests still open after 10 s were cut; ask for their results again (a chat request with the same Idempotency-Key answers the same turn).',
    );
  }
}
