import { type AnswerTruncation } from '../../shared/sampling';
import { ANSWER_TRUNCATION_DEFAULTS } from '../../shared/defaults/model-settings';
import type { ChatMessage, ToolCall } from '../../shared/messages';

/**
 * Answers cut by the token cap (`finish_reason: "length"`). A final text answer cut there is continued (the
 * model is asked to go on, and the parts are joined), failed, or accepted, as the run's `answerTruncation`
 * says; a tool call whose arguments were cut (not valid JSON) is never run. Pure: the workflow only applies
 * what these decide.
 */

/** The finish reason a provider gives an answer it cut at the token cap. */
export const LENGTH_FINISH_REASON = 'length';

/**
 * The `wf.patched` ids of the two behaviours. A run that recorded a cut answer before them completed with it,
 * and ran a cut tool call; asked only when an answer was cut, so a run that never meets one records no marker.
 */
export const ANSWER_TRUNCATION_PATCH = 'answer-truncation';
export const TRUNCATED_TOOL_CALL_PATCH = 'truncated-tool-call';

/** What the run does with a final text answer cut at the token cap. */
export type TruncatedAnswerDecision =
  /** Ask the model to continue: one more continuation of the `maxContinuations` allowed. */
  | { kind: 'continue' }
  /** The run completes with the cut answer, its result saying `truncated: true`. */
  | { kind: 'accept' }
  /** The run fails with `AnswerTruncated`; `continuations` were asked for before. */
  | { kind: 'fail'; continuations: number; maxContinuations: number };

/** Decides a cut final answer, `continuations` continuations into it. */
export function decideTruncatedAnswer(
  config: AnswerTruncation | undefined,
  continuations: number,
): TruncatedAnswerDecision {
  const action = config?.action ?? ANSWER_TRUNCATION_DEFAULTS.action;
  const maxContinuations = config?.maxContinuations ?? ANSWER_TRUNCATION_DEFAULTS.maxContinuations;
  if (action === 'accept') return { kind: 'accept' };
  if (action === 'continue' && continuations < maxContinuations) return { kind: 'continue' };
  return { kind: 'fail', continuations, maxContinuations: action === 'continue' ? maxContinuations : 0 };
}

/**
 * The answer that ends `messages` (the run's conversation, its last message the newest answer), with the parts
 * before it that were cut and continued: each part is an assistant message followed by the runner's
 * continuation request. `text` is the parts joined, `continuations` how many requests lie between them.
 */
export function continuedAnswer(messages: readonly ChatMessage[]): { text: string; continuations: number } {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return { text: '', continuations: 0 };
  const parts = [last.content ?? ''];
  let index = messages.length - 2;
  for (;;) {
    const request = messages[index];
    const part = messages[index - 1];
    if (request?.role !== 'system' || request.meta?.injected !== 'continuation' || part?.role !== 'assistant') break;
    parts.unshift(part.content ?? '');
    index -= 2;
  }
  return { text: parts.join(''), continuations: parts.length - 1 };
}

/** The calls of an answer cut at the token cap whose arguments are not valid JSON: the cap cut them. */
export function truncatedToolCalls(calls: readonly ToolCall[]): ToolCall[] {
  return calls.filter((call) => {
    try {
      JSON.parse(call.function.arguments.trim() === '' ? '{}' : call.function.arguments);
      return false;
    } catch {
      return true;
    }
  });
}
