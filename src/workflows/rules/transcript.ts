import type { AssistantMessage, ChatMessage, ToolCall } from '../../shared/messages';
import type { ToolCallResult } from '../../shared/activity-types';

/** The tool message a call gets when the run stops before the call finished. */
export const CANCELLED_RESULT = 'Cancelled: the run was stopped before this call finished.';

/**
 * Tool messages for every call of `assistant`: the result where there is
 * one, a synthetic "cancelled" one where there is not, so the transcript stays
 * one the provider accepts after a run is stopped mid-batch.
 */
export function toolMessagesFor(
  calls: readonly ToolCall[],
  results: ReadonlyMap<string, ToolCallResult>,
  iteration: number,
  missingText: string = CANCELLED_RESULT,
): ChatMessage[] {
  return calls.map((call) => ({
    role: 'tool' as const,
    tool_call_id: call.id,
    content: results.get(call.id)?.content ?? missingText,
    meta: { iteration },
  }));
}

/** The assistant message with one call's arguments replaced (an approver changed them). */
export function withCallArguments(message: AssistantMessage, callId: string, argumentsText: string): AssistantMessage {
  return {
    ...message,
    tool_calls: (message.tool_calls ?? []).map((call) =>
      call.id === callId ? { ...call, function: { ...call.function, arguments: argumentsText } } : call,
    ),
  };
}
