import type { Context } from '@temporalio/activity';

/**
 * Throws the activity's cancellation instead of `error` when the activity
 * was cancelled: the signal's reason is the SDK's `CancelledFailure`, so the
 * call is recorded as cancelled, not failed. Returns when it was not.
 */
export function throwIfCancelled(context: Context, error: unknown): void {
  if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason ?? error;
}
