import { DEFAULT_CIRCUIT_BREAKER_THRESHOLD } from '../../shared/defaults/context-control';
import { REQUIRE_TOOL_CALL_MESSAGE } from '../../shared/defaults/run-input';
import { type ParsedAgentInput } from '../../shared/agent-input';

/**
 * Nudging, the whole rule: a run that must end by calling a tool answers each text answer in a row with a nudge while
 * the count is <= `consecutiveNudges`, and fails beyond it; any tool call resets the count.
 */
export interface NudgePolicy {
  /** What the injected message is marked as: `nudge` in an autonomous run, `error_context` under `requireToolCall`. */
  injected: 'nudge' | 'error_context';
  /** The message injected. */
  message: string;
  /** Text answers in a row that are answered with a nudge; one more fails the run. */
  consecutiveNudges: number;
}

export type NudgeDecision =
  { kind: 'nudge'; consecutiveNudges: number } | { kind: 'nudges_exceeded'; consecutiveNudges: number };

/**
 * The run's nudge policy, or `undefined` when a text answer may end the run; terminating tools win over
 * `requireToolCall`, whose limit is the circuit breaker's threshold (one measure of a stuck run).
 */
export function nudgePolicyFor(
  input: Pick<ParsedAgentInput, 'terminating' | 'requireToolCall' | 'circuitBreaker'>,
): NudgePolicy | undefined {
  if (input.terminating !== undefined) {
    return {
      injected: 'nudge',
      message: input.terminating.nudgeMessage,
      consecutiveNudges: input.terminating.consecutiveNudges,
    };
  }
  if (!input.requireToolCall) return undefined;
  return {
    injected: 'error_context',
    message: REQUIRE_TOOL_CALL_MESSAGE,
    consecutiveNudges: input.circuitBreaker?.threshold ?? DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
  };
}

/** What to do with one more text answer after `nudgesSoFar` in a row. */
export function decideNudge(nudgesSoFar: number, policy: Pick<NudgePolicy, 'consecutiveNudges'>): NudgeDecision {
  const consecutiveNudges = nudgesSoFar + 1;
  return consecutiveNudges <= policy.consecutiveNudges
    ? { kind: 'nudge', consecutiveNudges }
    : { kind: 'nudges_exceeded', consecutiveNudges };
}

/** The counter after a response with tool calls: a tool call ends the run of text answers. */
export const NUDGES_AFTER_TOOL_CALL = 0;
