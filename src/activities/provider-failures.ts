import { ApplicationFailure, type Context } from '@temporalio/activity';
import { ACTIVITY_DEFAULTS, MODEL_CALL_PROVIDER_BACKOFF } from '../shared/defaults/activities';
import { FailureType } from '../shared/failure-catalogue';

/**
 * A model call's attempt budget counts the provider's failures only: such an attempt heartbeats the count, one up, and
 * sets the next delay (`Retry-After`, else 1 s doubling to 1 min) before it throws. An attempt lost to the
 * infrastructure leaves the count as it was and is retried after a flat second, however often.
 */

/** The key of the count in a model call's heartbeat details. */
const PROVIDER_FAILURES_KEY = 'providerFailures';

/** The provider failures of a call's earlier attempts, from the details the last one heartbeated (0 on the first). */
export function providerFailuresIn(details: unknown): number {
  if (typeof details !== 'object' || details === null) return 0;
  const count = (details as Record<string, unknown>)[PROVIDER_FAILURES_KEY];
  return typeof count === 'number' && Number.isInteger(count) && count > 0 ? count : 0;
}

/** `details` with the count added, when there is one to carry: every heartbeat of an attempt must carry it. */
export function withProviderFailures(details: object | undefined, count: number): object | undefined {
  return count === 0 ? details : { ...details, [PROVIDER_FAILURES_KEY]: count };
}

/** The provider attempt this one is, from 1, and the budget: what a failure message counts. */
export function providerAttemptOf(context: Context): { attempt: number; maxAttempts: number } {
  return {
    attempt: providerFailuresIn(context.info.heartbeatDetails) + 1,
    maxAttempts: ACTIVITY_DEFAULTS.modelCallMaxAttempts,
  };
}

/** The backoff after the `count`th provider failure: 1 s doubling, at most 1 min. */
function providerBackoffMs(count: number): number {
  const { initialIntervalMs, backoffCoefficient, maximumIntervalMs } = MODEL_CALL_PROVIDER_BACKOFF;
  return Math.min(maximumIntervalMs, initialIntervalMs * backoffCoefficient ** Math.max(0, count - 1));
}

/**
 * What an attempt throws for `error`, its own failure (never a cancellation): a retryable one counted, with its
 * count heartbeated through `details` and the next delay set, or made non-retryable once the budget is spent.
 * A failure already non-retryable is thrown as it is.
 */
export function countProviderFailure(
  context: Context,
  error: unknown,
  details: (count: number) => object | undefined,
): ApplicationFailure {
  const failure = ApplicationFailure.fromError(error);
  if (failure.nonRetryable) return failure;
  const count = providerFailuresIn(context.info.heartbeatDetails) + 1;
  context.heartbeat(details(count));
  if (count >= ACTIVITY_DEFAULTS.modelCallMaxAttempts)
    return ApplicationFailure.fromError(failure, { nonRetryable: true });
  return ApplicationFailure.fromError(failure, { nextRetryDelay: failure.nextRetryDelay ?? providerBackoffMs(count) });
}

/**
 * At an attempt's start: the call fails for good when earlier attempts spent the budget without throwing, each
 * running into its start-to-close timeout (their last heartbeat counts it, `keepHeartbeating`'s `final`).
 */
export function throwIfBudgetSpent(context: Context, where: string): void {
  const count = providerFailuresIn(context.info.heartbeatDetails);
  if (count < ACTIVITY_DEFAULTS.modelCallMaxAttempts) return;
  throw ApplicationFailure.create({
    type: FailureType.modelCallConnectionTimeout,
    message: `The request to ${where} did not answer within the call's timeout. Gave up after ${count} attempts.`,
    nonRetryable: true,
  });
}
