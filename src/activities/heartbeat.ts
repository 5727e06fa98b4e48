import type { Context } from '@temporalio/activity';
import { ACTIVITY_DEFAULTS } from '../shared/defaults/activities';

/**
 * Runs `work` while heartbeating (every `ACTIVITY_DEFAULTS.heartbeatIntervalMs`),
 * so the server notices a lost worker within the heartbeat timeout and a
 * cancellation reaches the activity: it does so only in the answer to a
 * heartbeat, so the interval (with the worker's throttle, see
 * createAgentWorker) bounds how long a cancelled call keeps running.
 * `details`, when given, go with every heartbeat (a model call's stream URL and credential):
 * a heartbeat without them would clear them on the server. Those are sent at
 * once, so followers find the stream while the answer comes; otherwise the
 * first heartbeat is due one interval after the start, not at once: most
 * calls are over before then, and a heartbeat each would be one more request
 * to the server per call, with nothing to tell it. `live`, when given, is read
 * at each heartbeat instead of `details` (a model call's spending so far,
 * which the next attempt reads: `attempt-usage.ts`).
 */
export async function keepHeartbeating<T>(
  context: Context,
  work: () => Promise<T>,
  details?: unknown,
  live?: () => unknown,
): Promise<T> {
  const beat = () => context.heartbeat(live === undefined ? details : live());
  if (details !== undefined) beat();
  const timer = setInterval(beat, ACTIVITY_DEFAULTS.heartbeatIntervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
