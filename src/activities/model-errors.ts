import { ApplicationFailure } from '@temporalio/activity';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { INVALID_RESPONSE_RETRY } from '../shared/defaults/activities';
import { FailureType, type FailureTypeName } from '../shared/failure-catalogue';

/**
 * A failed request as an `ApplicationFailure`: `type` says what happened, `nonRetryable` follows the status, and
 * `nextRetryDelay` honours `Retry-After`.
 */

interface StatusClass {
  type: FailureTypeName;
  retryable: boolean;
  /** What the reader should do next. */
  hint: string;
}

const STATUS_CLASSES: Record<number, StatusClass> = {
  400: {
    type: FailureType.modelCallBadRequest,
    retryable: false,
    hint: 'The provider rejected the request as malformed.',
  },
  401: { type: FailureType.modelCallUnauthorized, retryable: false, hint: 'Check OPENAI_API_KEY.' },
  403: {
    type: FailureType.modelCallForbidden,
    retryable: false,
    hint: 'The key has no access to this model or endpoint.',
  },
  404: { type: FailureType.modelCallNotFound, retryable: false, hint: 'Check the model name and OPENAI_BASE_URL.' },
  408: { type: FailureType.modelCallRequestTimeout, retryable: true, hint: 'Retrying.' },
  409: { type: FailureType.modelCallConflict, retryable: true, hint: 'Retrying.' },
  429: {
    type: FailureType.modelCallRateLimited,
    retryable: true,
    hint: 'Retrying after the delay the provider asked for.',
  },
};

const SERVER_ERROR: StatusClass = { type: FailureType.modelCallServerError, retryable: true, hint: 'Retrying.' };
const OTHER_CLIENT_ERROR: StatusClass = {
  type: FailureType.modelCallClientError,
  retryable: false,
  hint: 'The provider refused the request.',
};
/**
 * The request does not fit the model's context window: llama.cpp answers 400 with type `exceed_context_size_error`,
 * OpenAI with code `context_length_exceeded`. Sending it again will not make it fit.
 */
const CONTEXT_OVERFLOW: StatusClass = {
  type: FailureType.modelCallContextOverflow,
  retryable: false,
  hint:
    "The conversation does not fit the model's context window: turn on compaction (the run's `compaction`, with " +
    '`maxTokens` well below the window), lower the output cap (`max_tokens`) if one is set, or use a model with a ' +
    'larger context (for llama.cpp, a larger `--ctx-size`).',
};

/** Provider codes and types that say the request is longer than the context window. */
const CONTEXT_OVERFLOW_CODES: ReadonlySet<string> = new Set([
  'context_length_exceeded',
  'exceed_context_size_error',
  'context_window_exceeded',
]);

/** OpenAI answers 429 with this code when the account is out of credit: waiting will not help. */
const QUOTA_EXCEEDED: StatusClass = {
  type: FailureType.modelCallQuotaExceeded,
  retryable: false,
  hint: 'Add credit to the provider account or use another key.',
};

/** Context that makes a failure message actionable. */
export interface ModelCallContext {
  model: string;
  baseURL: string;
  /** This provider attempt's number, from 1 (`providerAttemptOf`); with `maxAttempts`, the last one says it gave up. */
  attempt?: number;
  /** The call's budget of provider failures; absent, 0 or infinite: unlimited. */
  maxAttempts?: number;
}

/**
 * What a retryable failure says will happen: `retrying` before the last attempt, and on the last one (when the retry
 * policy's `maximumAttempts` is known) that it gave up, so the run's final failure never says it is retrying.
 */
function nextStep(context: ModelCallContext, retrying: string): string {
  const { attempt, maxAttempts } = context;
  const last =
    attempt !== undefined &&
    maxAttempts !== undefined &&
    maxAttempts > 0 &&
    Number.isFinite(maxAttempts) &&
    attempt >= maxAttempts;
  return last ? `Gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}.` : retrying;
}

/** The failure to throw from the model-call activity for `error`. */
export function classifyModelError(error: unknown, context: ModelCallContext): ApplicationFailure {
  const where = `model "${context.model}" at ${context.baseURL}`;
  if (error instanceof APIConnectionTimeoutError) {
    return ApplicationFailure.retryable(
      `The request to ${where} timed out. ${nextStep(context, 'Retrying.')}`,
      FailureType.modelCallConnectionTimeout,
    );
  }
  if (error instanceof APIConnectionError) {
    const reason = (error.cause instanceof Error ? error.cause.message : error.message).replace(/\.+$/, '');
    return ApplicationFailure.retryable(
      `Could not reach ${where}: ${reason}. ${nextStep(context, 'Retrying.')}`,
      FailureType.modelCallConnectionError,
    );
  }
  if (error instanceof APIError && error.status !== undefined) {
    const statusClass = classifyStatus(error.status, error.code, error.type);
    const hint = statusClass.retryable ? nextStep(context, statusClass.hint) : statusClass.hint;
    const streamed = streamedChunks.get(error);
    const source =
      streamed === undefined
        ? `${error.status} from ${where}`
        : `${error.status} in the streamed answer of ${where} (after ${streamed} chunk${streamed === 1 ? '' : 's'})`;
    return ApplicationFailure.create({
      type: statusClass.type,
      message: `${source}: ${providerMessage(error)} ${hint}`,
      nonRetryable: !statusClass.retryable,
      nextRetryDelay: statusClass.retryable ? retryAfterMs(error.headers) : undefined,
      details: [
        { status: error.status, code: error.code ?? null, ...(streamed === undefined ? {} : { inStream: true }) },
      ],
    });
  }
  const text = error instanceof Error ? error.message : String(error);
  return ApplicationFailure.retryable(`The call to ${where} failed: ${text}`, FailureType.modelCallUnexpected);
}

/** What came back when a 2xx answer is not a chat completion. */
export interface InvalidResponse {
  status: number;
  contentType: string | null;
  /** The body as received (redacted by the caller). */
  body: string;
  /** What is wrong with it, as a phrase: "the body is not JSON". */
  problem: string;
}

/**
 * `ModelCall.InvalidResponse`: a 2xx that is not a chat completion. A misbehaving provider may recover, a wrong base
 * URL never does, so it is retried quickly and at most `INVALID_RESPONSE_RETRY.maxAttempts` times; the message quotes
 * the body's first `previewChars` characters.
 */
export function invalidResponseFailure(
  response: InvalidResponse,
  context: ModelCallContext & { attempt: number },
): ApplicationFailure {
  const { maxAttempts, retryDelayMs, previewChars } = INVALID_RESPONSE_RETRY;
  const lastAttempt = context.attempt >= maxAttempts;
  const preview = [...response.body].slice(0, previewChars).join('');
  const shown = preview === '' ? 'The body was empty.' : `It began: ${JSON.stringify(preview)}.`;
  const next = lastAttempt
    ? `Gave up after ${context.attempt} attempts: check that OPENAI_BASE_URL is the /v1 URL of an OpenAI-compatible server.`
    : `Attempt ${context.attempt} of ${maxAttempts}; retrying.`;
  return ApplicationFailure.create({
    type: FailureType.modelCallInvalidResponse,
    message:
      `The answer of model "${context.model}" at ${context.baseURL} (status ${response.status}, ` +
      `${response.contentType ?? 'no content-type'}) is not a chat completion: ${response.problem}. ${shown} ${next}`,
    nonRetryable: lastAttempt,
    nextRetryDelay: lastAttempt ? undefined : retryDelayMs,
    details: [{ status: response.status, contentType: response.contentType, problem: response.problem }],
  });
}

function classifyStatus(status: number, code: unknown, type: unknown): StatusClass {
  if (status === 429 && code === 'insufficient_quota') return QUOTA_EXCEEDED;
  if (
    status >= 400 &&
    status < 500 &&
    [code, type].some((value) => typeof value === 'string' && CONTEXT_OVERFLOW_CODES.has(value))
  )
    return CONTEXT_OVERFLOW;
  return STATUS_CLASSES[status] ?? (status >= 500 ? SERVER_ERROR : OTHER_CLIENT_ERROR);
}

/** The provider's own words: the JSON error body's message when there is one. */
function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (typeof body?.message === 'string' && body.message !== '') return body.message;
  return error.message.replace(/^\d{3}\s*/, '') || 'no message';
}

/**
 * The delay the provider asked for, in milliseconds: `retry-after-ms`, or
 * `retry-after` as seconds or an HTTP date. Undefined when absent or unusable,
 * so the provider backoff applies (`provider-failures.ts`).
 */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const milliseconds = headers?.get('retry-after-ms')?.trim();
  if (milliseconds && /^\d+(\.\d+)?$/.test(milliseconds)) return Math.ceil(Number(milliseconds));
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // Anything else must be an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"), never a bare or negative number.
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The in-stream errors {@link streamedError} made, with how many chunks came before them. */
const streamedChunks = new WeakMap<APIError, number>();

/**
 * An error streamed inside a 200 as the HTTP error it stands for: its `code` or `status` in 400..599, else 400 for a
 * context overflow or `invalid_request_error`, else 500; the headers come along for `Retry-After`.
 */
export function streamedError(body: unknown, chunks: number, headers: Headers): APIError {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const numeric = [fields.code, fields.status]
    .map((value) => (typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value))
    .find(
      (value): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 400 && value < 600,
    );
  const overflow = [fields.code, fields.type].some(
    (value) => typeof value === 'string' && CONTEXT_OVERFLOW_CODES.has(value),
  );
  const status = numeric ?? (overflow || fields.type === 'invalid_request_error' ? 400 : 500);
  const message = typeof fields.message === 'string' ? fields.message : JSON.stringify(body);
  const error = APIError.generate(status, { error: fields }, message, headers);
  streamedChunks.set(error, chunks);
  return error;
}

/**
 * `ModelCall.StreamInterrupted`: a stream broke off before the provider finished; retried like a connection error, the
 * next attempt from the start, and followers told to discard this one's deltas.
 */
export function streamInterruptedFailure(
  reason: string,
  chunks: number,
  context: ModelCallContext,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.modelCallStreamInterrupted,
    message:
      `The streamed answer of model "${context.model}" at ${context.baseURL} broke off after ${chunks} ` +
      `chunk${chunks === 1 ? '' : 's'}: ${reason.replace(/\.+$/, '')}. ${nextStep(context, 'Retrying from the start.')}`,
    nonRetryable: false,
    details: [{ chunks, reason }],
  });
}
