import { usageSchema, type Usage } from './messages';

/**
 * What a model call spent on attempts that returned no result (`src/activities/attempt-usage.ts`), as it
 * travels: under this key in the call's heartbeat details (so the next attempt, and a timeout's
 * `lastHeartbeatDetails`, have it) and in the last entry of its failure's details. Pure: the workflow reads
 * it from the failure in its history.
 */
export const SPENT_USAGE_KEY = 'spentUsage';

/** The `spentUsage` of heartbeat or failure details, when it is there and well formed. */
export function spentUsageIn(details: unknown): Usage | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const parsed = usageSchema.safeParse((details as Record<string, unknown>)[SPENT_USAGE_KEY]);
  return parsed.success ? parsed.data : undefined;
}
