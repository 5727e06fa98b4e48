import type { Redactor } from './redactor';

/**
 * `error` with every configured secret removed from its message, stack, details, cause and own fields, since a
 * failure's text lands in the history and the worker's log. An `Error` is changed in place so Temporal still reads its
 * `type`, `nonRetryable` and `nextRetryDelay`; any other value comes back as a redacted copy.
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
