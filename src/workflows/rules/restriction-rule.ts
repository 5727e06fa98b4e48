/**
 * Seed 001's restricted output. When the model would finish without calling a
 * tool, the restriction message is injected and the model called again, at
 * most `maxInjections` times per turn (0: no per-turn limit; the invocation
 * cap still bounds it). A tool call starts a new turn and the caller resets
 * the count.
 */
export interface RestrictionPolicy {
  /** Injections allowed per turn; 0 means unlimited. */
  maxInjections: number;
}

export type RestrictionDecision = { kind: 'restrict'; restrictionInjections: number } | { kind: 'restriction_spent' };

/** Whether one more content-only answer is met with an injection, after `injectionsThisTurn`. */
export function decideRestriction(injectionsThisTurn: number, policy: RestrictionPolicy): RestrictionDecision {
  if (policy.maxInjections !== 0 && injectionsThisTurn >= policy.maxInjections) return { kind: 'restriction_spent' };
  return { kind: 'restrict', restrictionInjections: injectionsThisTurn + 1 };
}
