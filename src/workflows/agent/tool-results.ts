import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { ACTIVITY_SUMMARY_ARGUMENT_CHARS } from '../../shared/defaults/event-log';
import { FailureType } from '../../shared/failure-catalogue';
import { unknownToolMessage, type ToolCallResult } from '../../shared/activity-types';
import { type ToolCall } from '../../shared/messages';

/** The answer to a call of a tool this run may not use: an error the model can act on. */
export function unknownToolResult(name: string, allowed: readonly string[]): ToolCallResult {
  return { content: unknownToolMessage(name, allowed), isError: true, terminate: false };
}

/** A one-line summary of a tool call for the web UI: name, short arguments, iteration. */
export function summarizeToolCall(call: ToolCall, iteration: number): string {
  const text = call.function.arguments.replace(/\s+/g, ' ').trim();
  const shortArguments =
    text.length > ACTIVITY_SUMMARY_ARGUMENT_CHARS ? `${text.slice(0, ACTIVITY_SUMMARY_ARGUMENT_CHARS - 1)}…` : text;
  return `${call.function.name} ${shortArguments} · iteration ${iteration}`;
}

/** Why a tool activity failed after its retries, in words for the model. */
export function describeToolFailure(toolName: string, error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof TimeoutFailure)
    return `tool "${toolName}" did not finish before its deadline (${cause.timeoutType})`;
  // Lost attempts until the deadline (Temporal ends the call with the last one's failure when the next retry would
  // start past it): the call did not finish; the tool itself did not fail.
  if (cause instanceof ApplicationFailure && cause.type === FailureType.toolCallLost)
    return `tool "${toolName}" did not finish before its deadline (every attempt was lost: ${cause.message})`;
  if (cause instanceof ApplicationFailure) return `tool "${toolName}" failed: ${cause.message}`;
  return `tool "${toolName}" failed: ${cause instanceof Error ? cause.message : String(cause)}`;
}
