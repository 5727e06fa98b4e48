import type { ToolCall } from '../../shared/messages';
import type { ToolCallResult } from '../../shared/activity-types';
import { preview, toolArgumentsForLog } from './event-log';
import type { RunRecord } from './run-record';

/**
 * The events that frame one tool call, whoever answers it (an activity, a
 * nested agent, or the workflow itself: `context_release`, `result_cache`),
 * so every call reads the same in the log.
 */

/** Logs that `call` starts, with `argumentsText` (the approver's, when they changed them); the turn counts it as executed. */
export function appendToolCallStart(run: RunRecord, call: ToolCall, argumentsText: string): void {
  run.events.append('tool-call-start', {
    iteration: run.iteration,
    callId: call.id,
    toolName: call.function.name,
    ...toolArgumentsForLog(argumentsText),
  });
  run.turn.executedTools.push(call.function.name);
}

/** Logs how `call` ended, `durationMs` (workflow time) after it started. */
export function appendToolCallEnd(run: RunRecord, call: ToolCall, durationMs: number, result: ToolCallResult): void {
  run.events.append('tool-call-end', {
    iteration: run.iteration,
    callId: call.id,
    toolName: call.function.name,
    durationMs,
    isError: result.isError,
    output: preview(result.content),
  });
}
