import type { Context } from '@temporalio/activity';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';

/** A tool that outran its own timeout: the activity answers the model rather than being timed out by the server. */
export class AttemptTimedOut {
  constructor(readonly afterMs: number) {}
}

/**
 * Runs `work` with an abort signal that fires shortly before the attempt's start-to-close timeout (or on cancellation),
 * so a slow tool is answered once as its own failure instead of run again as a lost attempt.
 */
export async function withinAttemptTimeout<T>(
  context: Context,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T | AttemptTimedOut> {
  const timeoutMs = context.info.startToCloseTimeoutMs;
  // How much earlier than Temporal's start-to-close timeout the activity gives up itself.
  const margin = Math.min(ACTIVITY_DEFAULTS.attemptMarginMs, timeoutMs * ACTIVITY_DEFAULTS.attemptMarginShare);
  const afterMs = Math.max(1, timeoutMs - margin);
  const attempt = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<AttemptTimedOut>((resolve) => {
    timer = setTimeout(() => {
      attempt.abort(new Error(`the tool did not finish within ${afterMs} ms`));
      resolve(new AttemptTimedOut(afterMs));
    }, afterMs);
  });
  try {
    return await Promise.race([work(AbortSignal.any([context.cancellationSignal, attempt.signal])), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
