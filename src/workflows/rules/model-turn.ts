import type { AssistantMessage, ToolCall } from '../../shared/messages';
import type { ParsedAgentInput } from '../../shared/agent-input';
import { NUDGES_AFTER_TOOL_CALL, decideNudge, nudgePolicyFor, type NudgePolicy } from './nudge-rule';
import {
  RESTRICTIONS_AFTER_TOOL_CALL,
  decideRestriction,
  restrictionPolicyFor,
  type RestrictionPolicy,
} from './restriction-rule';

/** The counters the turn rules read and return; the run keeps them. */
export interface TurnCounters {
  /** Text answers in a row answered with a nudge. */
  consecutiveNudges: number;
  /** Restriction messages injected in the current turn. */
  restrictionInjections: number;
}

/**
 * What the loop does after a model response, with the counters it leaves:
 * one discriminated union, decided by a pure function. The counters are the
 * next values, resets included, so the run only stores them.
 */
export type ModelTurnOutcome =
  /** Text and no tool calls, and nothing requires a tool: the run completes. */
  | { kind: 'final_output'; text: string; counters: TurnCounters }
  /** Text and no tool calls under restricted output: inject the restriction message and call again. */
  | { kind: 'restrict'; message: string; counters: TurnCounters }
  /** Text and no tool calls where a tool call is required: inject a nudge and call the model again. */
  | { kind: 'nudge'; injected: NudgePolicy['injected']; message: string; counters: TurnCounters }
  /** Text and no tool calls once too often in a row: the run fails. */
  | { kind: 'nudges_exceeded'; limit: number; counters: TurnCounters }
  /** Tool calls to execute; they start a new turn. */
  | { kind: 'run_tools'; calls: ToolCall[]; counters: TurnCounters };

/** The rules that apply to a text answer; absent ones do not. */
export interface TurnPolicy {
  /** Present when a tool call is required (terminating tools or `requireToolCall`). */
  nudge?: NudgePolicy;
  /** Present when restricted output is enabled. */
  restriction?: RestrictionPolicy;
}

/** The rules a run's input sets for text answers. */
export function turnPolicyFor(
  input: Pick<ParsedAgentInput, 'terminating' | 'requireToolCall' | 'circuitBreaker' | 'restrictOutput'>,
): TurnPolicy {
  const nudge = nudgePolicyFor(input);
  const restriction = restrictionPolicyFor(input);
  return { ...(nudge === undefined ? {} : { nudge }), ...(restriction === undefined ? {} : { restriction }) };
}

/**
 * Decides a model turn: tool calls run and reset both counters; a text answer meets restricted output while its
 * per-turn budget lasts, then nudging, which may fail the run, else it is the answer.
 */
export function decideModelTurn(
  message: AssistantMessage,
  counters: TurnCounters,
  policy: TurnPolicy,
): ModelTurnOutcome {
  const calls = message.tool_calls ?? [];
  if (calls.length > 0) {
    return {
      kind: 'run_tools',
      calls,
      counters: { consecutiveNudges: NUDGES_AFTER_TOOL_CALL, restrictionInjections: RESTRICTIONS_AFTER_TOOL_CALL },
    };
  }
  if (policy.restriction !== undefined) {
    const restriction = decideRestriction(counters.restrictionInjections, policy.restriction);
    if (restriction.kind === 'restrict') {
      return {
        kind: 'restrict',
        message: policy.restriction.message,
        counters: { ...counters, restrictionInjections: restriction.restrictionInjections },
      };
    }
  }
  if (policy.nudge !== undefined) {
    const nudge = decideNudge(counters.consecutiveNudges, policy.nudge);
    const next = { ...counters, consecutiveNudges: nudge.consecutiveNudges };
    return nudge.kind === 'nudge'
      ? { kind: 'nudge', injected: policy.nudge.injected, message: policy.nudge.message, counters: next }
      : { kind: 'nudges_exceeded', limit: policy.nudge.consecutiveNudges, counters: next };
  }
  return { kind: 'final_output', text: message.content ?? '', counters };
}
