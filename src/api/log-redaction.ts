import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyServerOptions } from 'fastify';
import { createRedactor } from '../redaction';
import { REDACTION } from '../shared/defaults/activities';
import { principalsOf, type ApiAuth } from './auth';

/**
 * The API's request log holds no token, however a client sends it: a careless client puts it in the query
 * string (`GET /runs?token=...`), and fastify logs each request's URL. Three layers, because the log holds
 * the URL in more than one place (the request line, a router error's message):
 * - the values of the query parameters that name a secret (`token`, `access_token`, `key`, `api_key`),
 *   in every line;
 * - `AGENT_API_TOKEN` itself, in every line, in the forms it takes in JSON and URLs;
 * - in the request's URL, any path segment or query value that is a principal's token (its digest matches).
 */

/** Query parameters whose values are secrets by name. */
const SECRET_PARAMETERS = ['token', 'access_token', 'key', 'api_key'];

/** `name=value` of a secret parameter anywhere in a text (a URL, a JSON log line that quotes one). */
const SECRET_PARAMETER_PATTERN = new RegExp(`([?&](?:${SECRET_PARAMETERS.join('|')})=)[^&#\\s"\\\\]*`, 'gi');

/** The values of secret query parameters replaced with the placeholder. */
export function redactSecretParameters(text: string): string {
  return text.replace(SECRET_PARAMETER_PATTERN, `$1${REDACTION.placeholder}`);
}

/**
 * Fastify's logger options with the redaction above: `false` stays `false`; otherwise pino's options with a
 * `req` serializer whose URL is redacted, and a hook that redacts each line before it is written.
 */
export function redactingLoggerOptions(
  logger: FastifyServerOptions['logger'],
  auth: ApiAuth,
): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return false;
  const options = logger === true ? {} : logger;
  const redactToken = createRedactor('disabled' in auth ? [] : [auth.token]);
  const digests = principalsOf(auth).map((principal) => principal.tokenSha256);
  const redactUrl = (url: string) => redactPrincipalTokens(redactSecretParameters(url), digests);
  return {
    ...options,
    serializers: {
      ...options.serializers,
      req: (request: {
        method: string;
        url: string;
        host?: string;
        ip?: string;
        socket?: { remotePort?: number };
      }) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    hooks: {
      ...options.hooks,
      streamWrite: (line: string) => redactSecretParameters(redactToken(line)),
    },
  };
}

/** The URL with each path segment and query value that is a principal's token replaced. */
function redactPrincipalTokens(url: string, digests: readonly Buffer[]): string {
  if (digests.length === 0) return url;
  return url.replace(/[^/?&=#]{16,}/g, (part) => {
    let decoded = part;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      // Not valid percent-encoding: compared as it is.
    }
    const digest = createHash('sha256').update(decoded, 'utf8').digest();
    return digests.some((known) => timingSafeEqual(digest, known)) ? REDACTION.placeholder : part;
  });
}
