import {
  CONTEXT_BUDGET_BYTES,
  HISTORY_BUDGET_BYTES,
  HISTORY_EVENT_BUDGET,
  PAYLOAD_BUDGET_BYTES,
} from '../../shared/defaults/sizes';
import { jsonBytes, utf8Bytes } from '../../shared/payload-limits';
import { type AgentResult } from '../../shared/agent-result';
import { type ChatMessage } from '../../shared/messages';
import { toGeneratedMessages } from './generated-messages';

/**
 * The checks that keep a run inside Temporal's size limits (see
 * `shared/payload-limits.ts`). Pure: the loop applies them before each model
 * call and to the result, and fails the run with its own reason first.
 */

/** Why the run cannot go on without passing one of Temporal's limits. */
export type SizeBreach =
  | { kind: 'context'; bytes: number; budget: number }
  | { kind: 'history'; bytes: number; events: number; budgetBytes: number; budgetEvents: number };

/** The run's event history so far, as `workflowInfo()` reports it. */
export interface HistoryMeasure {
  bytes: number;
  events: number;
}

/**
 * What the next call would carry and the result would weigh: the whole conversation (masking shortens the call, not
 * the result) plus the larger of the instructions and what the run added.
 */
export function projectedRunBytes(
  messages: readonly ChatMessage[],
  inputMessageCount: number,
  instructions: string | undefined,
): number {
  const generated = toGeneratedMessages(messages.slice(inputMessageCount));
  return jsonBytes(messages) + Math.max(utf8Bytes(instructions ?? ''), jsonBytes(generated));
}

/** Checked before every model call: the conversation's weight, then the history's. */
export function findSizeBreach(projectedBytes: number, history: HistoryMeasure): SizeBreach | undefined {
  if (projectedBytes > CONTEXT_BUDGET_BYTES)
    return { kind: 'context', bytes: projectedBytes, budget: CONTEXT_BUDGET_BYTES };
  if (history.bytes > HISTORY_BUDGET_BYTES || history.events > HISTORY_EVENT_BUDGET) {
    return { kind: 'history', ...history, budgetBytes: HISTORY_BUDGET_BYTES, budgetEvents: HISTORY_EVENT_BUDGET };
  }
  return undefined;
}

/** The result's size when it is too large to return, else undefined. */
export function oversizedResult(result: AgentResult): number | undefined {
  const bytes = jsonBytes(result);
  return bytes > PAYLOAD_BUDGET_BYTES ? bytes : undefined;
}
