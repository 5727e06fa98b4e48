import { INPUT_BOUNDS } from '../../shared/defaults/input-bounds';
import { STOP_REASON_CHARS } from '../../shared/defaults/run-input';
import { findTooDeep } from '../../shared/json-depth';

/**
 * Every signal and update handler asks this first: a value nested past the input bound would overflow a walk of it,
 * failing the workflow task, which Temporal retries forever.
 * @returns the problem, or undefined when the message is within bounds
 */
export function messageTooDeep(message: unknown): string | undefined {
  const tooDeep = findTooDeep(message, INPUT_BOUNDS.depth);
  if (tooDeep === undefined) return undefined;
  const at = tooDeep.path.length === 0 ? 'the message' : tooDeep.path.slice(0, 8).join('.');
  return `${at}: nested deeper than ${INPUT_BOUNDS.depth} levels`;
}

/** A stop or terminate reason as the run keeps it: text, cut to a sane length; anything else is no reason. */
export function reasonOf(message: { reason?: unknown } | undefined): string | undefined {
  const reason = message?.reason;
  if (typeof reason !== 'string') return undefined;
  return cutReason(reason, STOP_REASON_CHARS);
}

/** A reason the run keeps, cut to `maxChars` UTF-16 units and `…` when longer. */
export function cutReason(reason: string, maxChars: number): string {
  return reason.length > maxChars ? `${reason.slice(0, maxChars)}…` : reason;
}
