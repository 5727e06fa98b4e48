import type { Context } from '@temporalio/activity';

/**
 * How often a long activity heartbeats. A cancellation reaches an activity
 * only in the answer to a heartbeat, so this (with the worker's throttle,
 * see createAgentWorker) bounds how long a cancelled call keeps running.
 */
const HEARTBEAT_INTERVAL_MS = 1_000;

/**
 * Runs `work` while heartbeating, so the server notices a lost worker within
 * the heartbeat timeout and a cancellation reaches the activity.
 */
export async function keepHeartbeating<T>(context: Context, work: () => Promise<T>): Promise<T> {
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_INTERVAL_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
