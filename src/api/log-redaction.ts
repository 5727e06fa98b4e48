import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyServerOptions } from 'fastify';
import { createRedactor } from '../redaction';
import { REDACTION } from '../shared/defaults/activities';
import { principalsOf, type ApiAuth } from './auth';

/**
 * The API's request log holds no token, however a client sends it (fastify logs URLs, and a careless client puts
 * tokens in query strings): secret-named query values, `AGENT_API_TOKEN` in its JSON and URL forms, and any path
 * segment, query value or word whose digest matches a principal's token, encoded or not, are removed from every line.
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
      streamWrite: (line: string) => redactPrincipalTokens(redactSecretParameters(redactToken(line)), digests),
    },
  };
}

/** The shortest token a principal may hold, as `AGENT_API_TOKEN` must be. */
const MIN_TOKEN_CHARS = 16;

/** Characters a word may carry at either end around a token and still be redacted. */
const EDGE_CHARS = 8;

/** Words longer than this are compared whole only: no token is that long, and the work stays bounded. */
const MAX_EDGE_CHECKED_CHARS = 1024;

/** URL parts (path segments, query values) long enough to be a token; percent-decoded before they are compared. */
const URL_PART = new RegExp(`[^/?&=#\\s"\\\\]{${MIN_TOKEN_CHARS},}`, 'g');

/** Words long enough to be a token, between any separators a URL, a JSON line or a message puts around one. */
const WORD = new RegExp(`[^/?&=#%\\s"'\\\\<>,;:()[\\]{}]{${MIN_TOKEN_CHARS},}`, 'g');

/**
 * The text with each URL part and word that is a principal's token replaced; so is a word that holds one with
 * at most {@link EDGE_CHARS} other characters at either end (a JSON escape such as `\u0007` runs into a token
 * from a malformed URL). The bound keeps the work per line linear in its length, whatever a client sends.
 */
function redactPrincipalTokens(text: string, digests: readonly Buffer[]): string {
  if (digests.length === 0) return text;
  const isToken = (candidate: string) => {
    const digest = createHash('sha256').update(candidate, 'utf8').digest();
    return digests.some((known) => timingSafeEqual(digest, known));
  };
  const holdsToken = (word: string) => {
    const edge = word.length > MAX_EDGE_CHECKED_CHARS ? 0 : EDGE_CHARS;
    for (let front = 0; front <= edge; front += 1)
      for (let back = 0; back <= edge && word.length - front - back >= MIN_TOKEN_CHARS; back += 1)
        if (isToken(word.slice(front, word.length - back))) return true;
    return false;
  };
  return text
    .replace(URL_PART, (part) => (isToken(percentDecoded(part)) ? REDACTION.placeholder : part))
    .replace(WORD, (word) => (holdsToken(word) ? REDACTION.placeholder : word));
}

/** `part` percent-decoded, or as it is when it is not valid percent-encoding. */
function percentDecoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
