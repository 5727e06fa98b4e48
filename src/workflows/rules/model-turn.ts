import type { AssistantMessage, ToolCall } from '../../shared';
import { decideNudge, type NudgePolicy } from './nudge-rule';
import { decideRestriction, type RestrictionPolicy } from './restriction-rule';

/**
 * What the loop does after a model response: one discriminated union, decided
 * by a pure function, so the workflow only sequences.
 */
export type ModelTurnOutcome =
  /** Text and no tool calls, and nothing requires a tool: the run completes. */
  | { kind: 'final_output'; text: string }
  /** Text and no tool calls under `restrictOutput`: inject the restriction message and call again. */
  | { kind: 'restrict'; restrictionInjections: number }
  /** Text and no tool calls in an autonomous run: inject a nudge and call the model again. */
  | { kind: 'nudge'; consecutiveNudges: number }
  /** Text and no tool calls once too often in a row: the run fails. */
  | { kind: 'nudges_exceeded'; consecutiveNudges: number }
  /** Tool calls to execute; the caller starts a new turn (counters back to 0). */
  | { kind: 'run_tools'; calls: ToolCall[] };

/** The counters the rules read; the workflow keeps them. */
export interface TurnCounters {
  /** Content-only answers in a row answered with a nudge. */
  consecutiveNudges: number;
  /** Restriction messages injected in the current turn. */
  restrictionInjections: number;
}

/** The rules that apply to a text answer; absent ones do not. */
export interface TurnPolicy {
  /** Present when the run is autonomous (`terminating` given). */
  nudge?: NudgePolicy;
  /** Present when `restrictOutput.enabled`. */
  restriction?: RestrictionPolicy;
}

/**
 * Decides a model turn. For a text answer, the restriction (seed 001) applies
 * first, while its per-turn budget lasts; then the nudge rule (seed 000) when
 * the run is autonomous, which can fail the run; else the text is the answer.
 * Restriction injections do not count as nudges: the nudge counter only moves
 * once the restriction has been spent.
 */
export function decideModelTurn(message: AssistantMessage, counters: TurnCounters, policy: TurnPolicy): ModelTurnOutcome {
  const calls = message.tool_calls ?? [];
  if (calls.length > 0) return { kind: 'run_tools', calls };
  if (policy.restriction !== undefined) {
    const restriction = decideRestriction(counters.restrictionInjections, policy.restriction);
    if (restriction.kind === 'restrict') return restriction;
  }
  if (policy.nudge !== undefined) return decideNudge(counters.consecutiveNudges, policy.nudge);
  return { kind: 'final_output', text: message.content ?? '' };
}
