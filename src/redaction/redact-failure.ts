import type { Redactor } from './redactor';

/**
 * `error` with every configured secret removed from its message, stack,
 * details, cause and other own fields. An `Error` is changed in place, so its
 * class and what Temporal reads from it (`type`, `nonRetryable`,
 * `nextRetryDelay`) stay as they were; any other thrown value comes back as a
 * redacted copy.
 *
 * Activities throw what this returns: a failure's text is stored in the
 * workflow history and printed in the worker's log line about the failure,
 * and a provider may echo a key in an error message.
 */
export function redactFailure<T>(error: T, redact: Redactor): T {
  if (!redact.active) return error;
  if (!(error instanceof Error)) return redact.value(error);
  redactInPlace(error, redact, new Set());
  return error;
}

function redactInPlace(error: Error, redact: Redactor, seen: Set<Error>): void {
  if (seen.has(error)) return;
  seen.add(error);
  for (const key of Reflect.ownKeys(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (descriptor === undefined || !('value' in descriptor) || !descriptor.writable) continue;
    const value: unknown = descriptor.value;
    if (value instanceof Error) redactInPlace(value, redact, seen);
    else if (typeof value === 'string' || (typeof value === 'object' && value !== null)) {
      (error as unknown as Record<PropertyKey, unknown>)[key] = redact.value(value);
    }
  }
}
