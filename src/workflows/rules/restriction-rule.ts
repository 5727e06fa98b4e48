import type { ParsedAgentInput } from '../../shared/agent-input';

/**
 * Restricted output, the whole rule: a text answer gets the restriction message at most `maxInjections` times per turn
 * (0: no per-turn limit); a tool call starts a new turn.
 */
export interface RestrictionPolicy {
  /** Injections allowed per turn; 0 means unlimited. */
  maxInjections: number;
  /** The message injected. */
  message: string;
}

export type RestrictionDecision = { kind: 'restrict'; restrictionInjections: number } | { kind: 'restriction_spent' };

/** The run's restriction policy, or `undefined` when `restrictOutput` is not enabled. */
export function restrictionPolicyFor(input: Pick<ParsedAgentInput, 'restrictOutput'>): RestrictionPolicy | undefined {
  const restrictOutput = input.restrictOutput;
  if (restrictOutput?.enabled !== true) return undefined;
  return { maxInjections: restrictOutput.maxInjections, message: restrictOutput.message };
}

/** Whether one more text answer is met with an injection, after `injectionsThisTurn`. */
export function decideRestriction(
  injectionsThisTurn: number,
  policy: Pick<RestrictionPolicy, 'maxInjections'>,
): RestrictionDecision {
  if (policy.maxInjections !== 0 && injectionsThisTurn >= policy.maxInjections) return { kind: 'restriction_spent' };
  return { kind: 'restrict', restrictionInjections: injectionsThisTurn + 1 };
}

/** The count after a response with tool calls: a tool call starts a new turn. */
export const RESTRICTIONS_AFTER_TOOL_CALL = 0;
