import { usageSchema, type Usage } from './messages';

/**
 * The key under which a model call's spending on failed attempts travels: its heartbeat details and the last entry of
 * its failure's details, where the workflow reads it.
 */
export const SPENT_USAGE_KEY = 'spentUsage';

/** The `spentUsage` of heartbeat or failure details, when it is there and well formed. */
export function spentUsageIn(details: unknown): Usage | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const parsed = usageSchema.safeParse((details as Record<string, unknown>)[SPENT_USAGE_KEY]);
  return parsed.success ? parsed.data : undefined;
}
