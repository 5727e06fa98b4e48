import { SEARCH_ATTRIBUTE_COUNTER_STEP } from '../../shared/defaults/activities';

/** A run's search attributes as plain values, the termination reason `''` while there is none. */
export interface SearchAttributeValues {
  status: string;
  iterations: number;
  totalTokens: number;
  /** What the run has cost, while its usage is priced; sent only with another change, never alone. */
  costUsd?: number;
  pendingApprovals: number;
  terminationReason: string;
}

/**
 * Whether `current` is worth an upsert after `published` (what was last sent in this Temporal run,
 * `undefined` before the first). What visibility queries select runs by is sent at once: the
 * status (`AgentStatus='waiting_for_approval'`), the pending approvals, the termination reason.
 * The counters change with every model call; alone they are sent only every
 * {@link SEARCH_ATTRIBUTE_COUNTER_STEP} iterations, and exact with any of the others, so a run
 * that ended or waits shows its true counts.
 */
export function isMeaningfulChange(
  published: SearchAttributeValues | undefined,
  current: SearchAttributeValues,
): boolean {
  if (published === undefined) return true;
  return (
    current.status !== published.status ||
    current.pendingApprovals !== published.pendingApprovals ||
    current.terminationReason !== published.terminationReason ||
    current.iterations - published.iterations >= SEARCH_ATTRIBUTE_COUNTER_STEP
  );
}
