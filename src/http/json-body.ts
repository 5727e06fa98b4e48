import type { FastifyInstance } from 'fastify';
import { API_MAX_JSON_DEPTH } from '../shared/defaults/api';
import { ApiError } from './api-error';

/**
 * Refuses a JSON body nested deeper than `maxDepth` with 400 `invalid_body` before parsing it; everything else stays
 * fastify's default parser's.
 * @param maxDepth @default {@link API_MAX_JSON_DEPTH}
 */
export function limitJsonDepth(app: FastifyInstance, maxDepth: number = API_MAX_JSON_DEPTH): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (nestsDeeperThan(body as string, maxDepth)) {
      done(
        new ApiError(
          'invalid_body',
          `The body nests arrays and objects more than ${maxDepth} levels deep; no request needs that many.`,
          [{ field: '(body)', problem: `nested more than ${maxDepth} levels deep` }],
        ),
        undefined,
      );
      return;
    }
    void parseJson(request, body as string, done);
  });
}

/**
 * Whether JSON text nests deeper than `limit`, in one pass without recursion (brackets in strings do not count).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) {
      inString = true;
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
