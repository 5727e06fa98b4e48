/**
 * Seed 000's nudge counting. Each content-only answer in an autonomous run
 * raises the counter; while it is <= `consecutiveNudges` the model is nudged,
 * beyond it the run fails. The caller resets the counter on any tool call.
 */
export interface NudgePolicy {
  /** Content-only answers in a row that are answered with a nudge. */
  consecutiveNudges: number;
}

export type NudgeDecision =
  | { kind: 'nudge'; consecutiveNudges: number }
  | { kind: 'nudges_exceeded'; consecutiveNudges: number };

/** What to do with one more content-only answer after `nudgesSoFar` in a row. */
export function decideNudge(nudgesSoFar: number, policy: NudgePolicy): NudgeDecision {
  const consecutiveNudges = nudgesSoFar + 1;
  return consecutiveNudges <= policy.consecutiveNudges
    ? { kind: 'nudge', consecutiveNudges }
    : { kind: 'nudges_exceeded', consecutiveNudges };
}
