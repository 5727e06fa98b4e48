import { HTTP_STATUS_OF, toApiError } from '../../src/http/errors';
import { ApiError } from '../../src/http/api-error';
import { API_ERROR_CODES, API_ERROR_CODE_NAMES } from '../../src/http/error-codes';

/** The API's error codes come from one catalogue; an error answers its code's status there. */
describe('the API error-code catalogue', () => {
  test('names each code once, in snake_case, with a 4xx or 5xx status and a meaning', () => {
    expect(new Set(API_ERROR_CODE_NAMES).size).toBe(API_ERROR_CODE_NAMES.length);
    for (const code of API_ERROR_CODE_NAMES) {
      expect({ code, snakeCase: /^[a-z]+(_[a-z]+)*$/.test(code) }).toEqual({ code, snakeCase: true });
      expect(API_ERROR_CODES[code].status).toBeGreaterThanOrEqual(400);
      expect(API_ERROR_CODES[code].status).toBeLessThan(600);
      expect(API_ERROR_CODES[code].meaning).not.toBe('');
    }
  });

  test("an ApiError answers its code's status", () => {
    expect(new ApiError('run_not_found', 'gone')).toMatchObject({ statusCode: 404, code: 'run_not_found' });
    expect(new ApiError('temporal_unavailable', 'down')).toMatchObject({ statusCode: 503 });
  });

  test("a failure type's answer is its code's status in the catalogue", () => {
    for (const [type, answer] of Object.entries(HTTP_STATUS_OF)) {
      expect({ type, status: answer.status }).toEqual({ type, status: API_ERROR_CODES[answer.code].status });
    }
  });

  test('a 4xx fastify raised keeps its status under bad_request', () => {
    const error = Object.assign(new Error('Method Not Allowed'), { statusCode: 405 });
    expect(toApiError(error, 'req-1')).toMatchObject({ statusCode: 405, code: 'bad_request' });
  });
});
