import { REDACTION } from '../shared/defaults/activities';

/**
 * Replaces every configured secret in a text with `[redacted]`. Pure: it
 * knows only the secrets it was built from, so the same redactor serves the
 * activities' failures and the worker's log lines.
 */
export interface Redactor {
  (text: string): string;
  /**
   * A copy of `value` with every string in it redacted, at any depth: log
   * metadata, failure details. Errors keep their class; values that are not
   * strings, arrays, plain objects or errors are passed through unchanged.
   */
  value<T>(value: T): T;
  /** False when no secret long enough to redact was given: the redactor then returns its input. */
  readonly active: boolean;
}

/**
 * A redactor for `secrets` of at least `REDACTION.minSecretLength` characters, also in their JSON- and URL-quoted
 * forms; the longest match wins, so a secret containing another is hidden whole.
 */
export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined || secret.length < REDACTION.minSecretLength) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
    forms.add(encodeURIComponent(secret));
  }
  const pattern =
    forms.size === 0
      ? undefined
      : new RegExp(
          [...forms]
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join('|'),
          'g',
        );

  const redactText = (text: string): string =>
    pattern === undefined ? text : text.replace(pattern, REDACTION.placeholder);
  const redactValue = <T>(value: T): T =>
    pattern === undefined ? value : (copyRedacted(value, redactText, new Map()) as T);
  return Object.assign(redactText, { value: redactValue, active: pattern !== undefined });
}

function copyRedacted(value: unknown, redactText: (text: string) => string, seen: Map<object, unknown>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  // Cycles (an error whose cause points back, circular metadata) are copied once.
  if (seen.has(value)) return seen.get(value);
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(copyRedacted(item, redactText, seen));
    return copy;
  }
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (!(value instanceof Error) && prototype !== Object.prototype && prototype !== null) return value;
  // An error's message and stack are own properties that are not enumerable: copy every own key, symbols too
  // (the SDK's log metadata carries its timestamp under a symbol).
  const copy = Object.create(prototype) as Record<PropertyKey, unknown>;
  seen.set(value, copy);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined) continue;
    // A getter (some runtimes define an error's `stack` so) is read once: its text is what must not leak.
    const inner = 'value' in descriptor ? descriptor.value : readSafely(value, key);
    Object.defineProperty(copy, key, {
      value: copyRedacted(inner, redactText, seen),
      enumerable: descriptor.enumerable ?? false,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function readSafely(target: object, key: PropertyKey): unknown {
  try {
    return Reflect.get(target, key);
  } catch {
    return undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
