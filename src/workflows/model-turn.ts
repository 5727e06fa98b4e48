import type { AssistantMessage, ToolCall } from '../shared';

/**
 * What the loop does after a model response: one discriminated union, decided
 * by a pure function, so the workflow only sequences.
 */
export type ModelTurnOutcome =
  /** Text and no tool calls, and nothing requires a tool: the run completes. */
  | { kind: 'final_output'; text: string }
  /** Text and no tool calls in an autonomous run: inject a nudge and call the model again. */
  | { kind: 'nudge'; consecutiveNudges: number }
  /** Text and no tool calls once too often in a row: the run fails. */
  | { kind: 'nudges_exceeded'; consecutiveNudges: number }
  /** Tool calls to execute. */
  | { kind: 'run_tools'; calls: ToolCall[] };

export interface NudgePolicy {
  /** Content-only answers in a row that are answered with a nudge. */
  consecutiveNudges: number;
}

/**
 * Seed 000's nudge counting: each content-only answer raises the counter;
 * while it is <= the allowed number the model is nudged, beyond it the run
 * fails; any tool call resets it (the caller resets on `run_tools`).
 *
 * @param nudgesSoFar content-only answers in a row before this one
 * @param nudgePolicy present when the run is autonomous (`terminating` given)
 */
export function decideModelTurn(
  message: AssistantMessage,
  nudgesSoFar: number,
  nudgePolicy: NudgePolicy | undefined,
): ModelTurnOutcome {
  const calls = message.tool_calls ?? [];
  if (calls.length > 0) return { kind: 'run_tools', calls };
  if (nudgePolicy === undefined) return { kind: 'final_output', text: message.content ?? '' };
  const consecutiveNudges = nudgesSoFar + 1;
  return consecutiveNudges <= nudgePolicy.consecutiveNudges
    ? { kind: 'nudge', consecutiveNudges }
    : { kind: 'nudges_exceeded', consecutiveNudges };
}
