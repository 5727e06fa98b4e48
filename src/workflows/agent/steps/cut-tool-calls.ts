import * as wf from '@temporalio/workflow';
import type { ToolCall } from '../../../shared/messages';
import { LENGTH_FINISH_REASON, TRUNCATED_TOOL_CALL_PATCH, truncatedToolCalls } from '../../rules/answer-truncation';

/**
 * The ids of the calls of a response the token cap cut (`finishReason` `length`) whose arguments it cut (not
 * valid JSON): they are answered with an error saying so, and their tools do not run. Empty for any other
 * response, and when replaying a history recorded without `TRUNCATED_TOOL_CALL_PATCH`.
 */
export function cutToolCalls(finishReason: string | null, calls: readonly ToolCall[]): ReadonlySet<string> {
  if (finishReason !== LENGTH_FINISH_REASON) return new Set();
  const cut = truncatedToolCalls(calls);
  if (cut.length === 0 || !wf.patched(TRUNCATED_TOOL_CALL_PATCH)) return new Set();
  return new Set(cut.map((call) => call.id));
}
