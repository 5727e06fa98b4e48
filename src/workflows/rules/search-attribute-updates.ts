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
 * Whether `current` is worth an upsert after `published`: what visibility queries select by (status, pending approvals,
 * termination reason) goes at once; the counters alone only every {@link SEARCH_ATTRIBUTE_COUNTER_STEP} iterations.
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
