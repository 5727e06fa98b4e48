import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import {
  classifyModelError,
  retryAfterMs,
  streamedError,
  streamInterruptedFailure,
  type ModelCallContext,
} from '../../src/activities/model-errors';

const CONTEXT: ModelCallContext = { model: 'gpt-test', baseURL: 'https://llm.example/v1' };
const WHERE = 'model "gpt-test" at https://llm.example/v1';

/**
 * An error as the openai client builds it from a failed response: the
 * response body is `{ error: { message, code, ... } }` and `generate` keeps
 * its `error` member, from which `APIError` reads `code`.
 */
function apiError(
  status: number,
  errorBody: { message: string; code?: string | number; type?: string },
  headers: Record<string, string> = {},
): APIError {
  return APIError.generate(status, { error: errorBody }, undefined, new Headers(headers));
}

describe('retryAfterMs', () => {
  const headers = (values: Record<string, string>): Headers => new Headers(values);

  test('reads retry-after-ms, rounding up', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '1500.2' }))).toBe(1501);
  });

  test('retry-after-ms wins over retry-after', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
  });

  test('reads retry-after in seconds', () => {
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2000);
  });

  test('reads fractional retry-after seconds', () => {
    expect(retryAfterMs(headers({ 'retry-after': '0.5' }))).toBe(500);
  });

  test('a zero retry-after means no wait', () => {
    expect(retryAfterMs(headers({ 'retry-after': '0' }))).toBe(0);
  });

  test('falls back to retry-after when retry-after-ms is garbage', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': 'soon', 'retry-after': '3' }))).toBe(3000);
  });

  test('falls back to retry-after when retry-after-ms is negative', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '-5', 'retry-after': '3' }))).toBe(3000);
  });

  test('reads an HTTP date relative to the given now', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:27:30 GMT');

    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), now)).toBe(30_000);
  });

  test('an HTTP date in the past means no wait', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:29:00 GMT');

    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), now)).toBe(0);
  });

  test('garbage in retry-after gives undefined', () => {
    expect(retryAfterMs(headers({ 'retry-after': 'in a little while' }))).toBeUndefined();
  });

  test('a blank retry-after gives undefined', () => {
    expect(retryAfterMs(headers({ 'retry-after': '   ' }))).toBeUndefined();
  });

  test('no retry headers gives undefined', () => {
    expect(retryAfterMs(headers({ 'content-type': 'application/json' }))).toBeUndefined();
  });

  test('no headers at all gives undefined', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('classifyModelError for HTTP status errors', () => {
  test.each([
    [400, 'ModelCall.BadRequest', 'The provider rejected the request as malformed.'],
    [401, 'ModelCall.Unauthorized', 'Check OPENAI_API_KEY.'],
    [403, 'ModelCall.Forbidden', 'The key has no access to this model or endpoint.'],
    [404, 'ModelCall.NotFound', 'Check the model name and OPENAI_BASE_URL.'],
    [422, 'ModelCall.ClientError', 'The provider refused the request.'],
  ])('%i is a non-retryable %s', (status, type, hint) => {
    const failure = classifyModelError(apiError(status, { message: 'nope' }, { 'retry-after': '5' }), CONTEXT);

    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.message).toBe(`${status} from ${WHERE}: nope ${hint}`);
    expect(failure.details).toEqual([{ status, code: null }]);
  });

  test.each([
    [408, 'ModelCall.RequestTimeout'],
    [409, 'ModelCall.Conflict'],
    [429, 'ModelCall.RateLimited'],
    [500, 'ModelCall.ServerError'],
    [503, 'ModelCall.ServerError'],
  ])('%i is a retryable %s', (status, type) => {
    const failure = classifyModelError(apiError(status, { message: 'busy' }), CONTEXT);

    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  test('a 429 carries the provider message, the hint and the status in its details', () => {
    const failure = classifyModelError(
      apiError(429, { message: 'Rate limit reached', code: 'rate_limit_exceeded' }),
      CONTEXT,
    );

    expect(failure.message).toBe(
      `429 from ${WHERE}: Rate limit reached Retrying after the delay the provider asked for.`,
    );
    expect(failure.details).toEqual([{ status: 429, code: 'rate_limit_exceeded' }]);
  });

  test('a 429 waits as long as Retry-After asks', () => {
    const failure = classifyModelError(apiError(429, { message: 'slow down' }, { 'retry-after': '7' }), CONTEXT);

    expect(failure.nextRetryDelay).toBe(7000);
  });

  test('a 503 honours retry-after-ms', () => {
    const failure = classifyModelError(apiError(503, { message: 'overloaded' }, { 'retry-after-ms': '1200' }), CONTEXT);

    expect(failure.nextRetryDelay).toBe(1200);
  });

  test('a 429 for insufficient quota is a non-retryable QuotaExceeded', () => {
    const error = apiError(
      429,
      { message: 'You exceeded your current quota.', code: 'insufficient_quota' },
      { 'retry-after': '7' },
    );

    const failure = classifyModelError(error, CONTEXT);

    expect(error.code).toBe('insufficient_quota');
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('ModelCall.QuotaExceeded');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.message).toBe(
      `429 from ${WHERE}: You exceeded your current quota. Add credit to the provider account or use another key.`,
    );
    expect(failure.details).toEqual([{ status: 429, code: 'insufficient_quota' }]);
  });

  test('insufficient_quota on another status does not make it a quota failure', () => {
    const failure = classifyModelError(apiError(500, { message: 'odd', code: 'insufficient_quota' }), CONTEXT);

    expect(failure.type).toBe('ModelCall.ServerError');
    expect(failure.nonRetryable).toBe(false);
  });

  test('without a body the status text of the error is used', () => {
    const failure = classifyModelError(APIError.generate(500, undefined, undefined, new Headers()), CONTEXT);

    expect(failure.message).toBe(`500 from ${WHERE}: status code (no body) Retrying.`);
  });
});

describe('classifyModelError for connection and other errors', () => {
  test('a connection error is retryable and names its cause', () => {
    const error = new APIConnectionError({
      message: 'Connection error.',
      cause: new Error('connect ECONNREFUSED 127.0.0.1:11434'),
    });

    const failure = classifyModelError(error, CONTEXT);

    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('ModelCall.ConnectionError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe(`Could not reach ${WHERE}: connect ECONNREFUSED 127.0.0.1:11434. Retrying.`);
  });

  test('a connection timeout is retryable with its own type', () => {
    const failure = classifyModelError(new APIConnectionTimeoutError(), CONTEXT);

    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('ModelCall.ConnectionTimeout');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe(`The request to ${WHERE} timed out. Retrying.`);
  });

  test('generate without status or headers gives a connection error, classified as one', () => {
    const error = APIError.generate(undefined, new Error('socket hang up'), undefined, undefined);

    const failure = classifyModelError(error, CONTEXT);

    expect(error).toBeInstanceOf(APIConnectionError);
    expect(failure.type).toBe('ModelCall.ConnectionError');
    expect(failure.message).toBe(`Could not reach ${WHERE}: socket hang up. Retrying.`);
  });

  test('any other error is a retryable Unexpected failure with its message', () => {
    const failure = classifyModelError(new TypeError('fetch is not a function'), CONTEXT);

    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('ModelCall.Unexpected');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe(`The call to ${WHERE} failed: fetch is not a function`);
  });

  test('a thrown non-error is stringified', () => {
    expect(classifyModelError('boom', CONTEXT).message).toBe(`The call to ${WHERE} failed: boom`);
  });
});

describe('regressions found in review', () => {
  test('an empty retry-after-ms falls back to retry-after', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '', 'retry-after': '3' }))).toBe(3000);
  });

  test('a negative or non-numeric retry-after is unusable', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '-1' }))).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '-5' }))).toBeUndefined();
  });

  test('a connection error without a cause does not end in ".."', () => {
    const failure = classifyModelError(new APIConnectionError({ message: 'Connection error.' }), {
      model: 'm',
      baseURL: 'http://h/v1',
    });
    expect(failure.message).toBe('Could not reach model "m" at http://h/v1: Connection error. Retrying.');
  });
});

describe('context overflow', () => {
  test("llama.cpp's 400 exceed_context_size_error is a non-retryable ContextOverflow that says what to do", () => {
    const failure = classifyModelError(
      apiError(400, {
        code: 400,
        message: 'request (786 tokens) exceeds the available context size (512 tokens), try increasing it',
        type: 'exceed_context_size_error',
      }),
      CONTEXT,
    );
    expect(failure.type).toBe('ModelCall.ContextOverflow');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('exceeds the available context size (512 tokens)');
    expect(failure.message).toContain('compaction');
    expect(failure.message).toContain('max_tokens');
    expect(failure.message).toContain('larger context');
    expect(failure.message).not.toContain('malformed');
  });

  test("OpenAI's context_length_exceeded code is ContextOverflow too", () => {
    const failure = classifyModelError(
      apiError(400, {
        message: "This model's maximum context length is 8192 tokens.",
        code: 'context_length_exceeded',
      }),
      CONTEXT,
    );
    expect(failure.type).toBe('ModelCall.ContextOverflow');
    expect(failure.nonRetryable).toBe(true);
  });

  test('another 400 stays BadRequest', () => {
    expect(classifyModelError(apiError(400, { message: 'bad', code: 'invalid_value' }), CONTEXT).type).toBe(
      'ModelCall.BadRequest',
    );
  });
});

describe('the last attempt does not say it retries', () => {
  const last: ModelCallContext = { ...CONTEXT, attempt: 8, maxAttempts: 8 };

  test.each([
    ['a 500', apiError(500, { message: 'busy' })],
    ['a 429', apiError(429, { message: 'slow down' })],
    ['a connection error', new APIConnectionError({ cause: new Error('ECONNREFUSED') })],
    ['a connection timeout', new APIConnectionTimeoutError()],
  ])('%s on attempt 8 of 8 says it gave up', (_name, error) => {
    const failure = classifyModelError(error, last);
    expect(failure.message).toMatch(/Gave up after 8 attempts\.$/);
    expect(failure.message).not.toMatch(/retrying/i);
  });

  test('a stream broken off on the last attempt says it gave up', () => {
    const failure = streamInterruptedFailure('the connection failed', 3, last);
    expect(failure.message).toMatch(/Gave up after 8 attempts\.$/);
  });

  test.each([
    ['before the last attempt', { ...CONTEXT, attempt: 7, maxAttempts: 8 }],
    ['with no retry policy known', { ...CONTEXT, attempt: 8 }],
    ['with unlimited attempts (0)', { ...CONTEXT, attempt: 8, maxAttempts: 0 }],
    ['with unlimited attempts (Infinity)', { ...CONTEXT, attempt: 8, maxAttempts: Number.POSITIVE_INFINITY }],
  ])('%s it still says it retries', (_name, context) => {
    expect(classifyModelError(apiError(503, { message: 'busy' }), context).message).toMatch(/busy Retrying\.$/);
  });
});

describe('streamedError: an error object sent inside a stream, as an HTTP error', () => {
  test.each([
    [{ code: 500, message: 'peg' }, 500],
    [{ code: '503', message: 'x' }, 503],
    [{ status: 429, message: 'x' }, 429],
    [{ message: 'no code' }, 500],
    [{ code: 'server_is_sad', message: 'x' }, 500],
    [{ code: 42, message: 'not a status' }, 500],
    [{ type: 'invalid_request_error', message: 'x' }, 400],
    [{ code: 'context_length_exceeded', message: 'x' }, 400],
  ])('%j stands for %i', (body, status) => {
    expect(streamedError(body, 2, new Headers()).status).toBe(status);
  });

  test('its failure names the stream and the chunks before the error', () => {
    const failure = classifyModelError(streamedError({ code: 500, message: 'peg' }, 4, new Headers()), CONTEXT);
    expect(failure.type).toBe('ModelCall.ServerError');
    expect(failure.message).toBe(`500 in the streamed answer of ${WHERE} (after 4 chunks): peg Retrying.`);
    expect(failure.details).toEqual([{ status: 500, code: 500, inStream: true }]);
  });
});
