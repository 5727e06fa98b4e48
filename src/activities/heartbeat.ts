import type { Context } from '@temporalio/activity';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';
import { watchForStop } from './stop-watch';

/** How an activity heartbeats while `keepHeartbeating` runs its work. */
export interface HeartbeatPlan {
  /** The worker's heartbeat interval (`AGENT_HEARTBEAT_INTERVAL`); at most half the attempt's heartbeat timeout is used. */
  intervalMs?: number;
  /**
   * Sent with every heartbeat, and at once when the work starts (a model call's stream announcement, for a run whose
   * followers cannot find the stream from the worker's identity): a heartbeat without them would clear them.
   */
  details?: unknown;
  /** Read at each heartbeat instead of `details` (a model call's spending so far, which the next attempt reads). */
  live?: () => unknown;
  /** Read instead for the last heartbeat before the start-to-close timeout (a model call counts the timeout in it). */
  final?: () => unknown;
}

/**
 * Runs `work`, heartbeating every interval from one interval after the start (each heartbeat is a billed action, so a
 * short call sends none). The run is described every `ACTIVITY_DEFAULTS.cancelCheckIntervalMs` (not billed), and a
 * heartbeat goes at once when the run ended or asked the call to stop, since cancellation arrives only in a
 * heartbeat's answer; one more goes just before the start-to-close timeout, to keep what the attempt spent.
 */
export async function keepHeartbeating<T>(
  context: Context,
  work: () => Promise<T>,
  plan: HeartbeatPlan = {},
): Promise<T> {
  const beat = () => context.heartbeat(plan.live === undefined ? plan.details : plan.live());
  if (plan.details !== undefined) beat();
  const timer = setInterval(beat, heartbeatIntervalOf(context, plan.intervalMs));
  const finalBeat = beforeTimeout(context, plan.final === undefined ? beat : () => context.heartbeat(plan.final?.()));
  const stopWatch = watchForStop(context, beat);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    clearTimeout(finalBeat);
    stopWatch();
  }
}

/** The interval used: the worker's, at most half the attempt's heartbeat timeout (one late heartbeat must not lose it). */
function heartbeatIntervalOf(context: Context, configuredMs: number | undefined): number {
  const intervalMs = configuredMs ?? ACTIVITY_DEFAULTS.heartbeatIntervalMs;
  const timeoutMs = context.info.heartbeatTimeoutMs;
  return timeoutMs === undefined || timeoutMs <= 0 ? intervalMs : Math.max(500, Math.min(intervalMs, timeoutMs / 2));
}

/** A heartbeat just before the attempt's start-to-close timeout, if it comes to that. */
function beforeTimeout(context: Context, beat: () => void): NodeJS.Timeout | undefined {
  const timeoutMs = context.info.startToCloseTimeoutMs;
  if (!(timeoutMs > ACTIVITY_DEFAULTS.finalHeartbeatMarginMs * 2)) return undefined;
  const timer = setTimeout(beat, timeoutMs - ACTIVITY_DEFAULTS.finalHeartbeatMarginMs);
  timer.unref();
  return timer;
}
