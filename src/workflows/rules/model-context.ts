import { COMPACTION_SUMMARY_HEADING } from '../../shared/defaults/context-control';
import type { MaskingConfig } from '../../shared/loop-guard-schemas';
import type { ChatMessage } from '../../shared/messages';
import { estimateTokens, maskObservations, toolNameLookup, type MaskedObservation } from './observation-masking';

/**
 * What the model sees before a model call: the caller's own system messages word for word, then the compaction's
 * summary (a `user` message, since it retells untrusted text), then the messages after `throughIndex`, masked.
 */

/** A run's compaction: the messages through `throughIndex` are summarised by `summary`. */
export interface ConversationCompaction {
  /** Index in the transcript of the last message the summary stands for. */
  throughIndex: number;
  summary: string;
  /** The iteration before whose model call the summary was written. */
  iteration: number;
  /** Compactions the run has made, this one included. */
  count: number;
}

/** The model's context, and where its messages come from. */
export interface ModelContext {
  /** What the model is sent (after the run's instructions). */
  messages: ChatMessage[];
  /** How many of `messages` stand before the transcript's messages: pinned system messages and the summary. */
  headLength: number;
  /** The transcript index of `messages[headLength]`: everything from there on is the transcript, one for one. */
  tailStart: number;
  /** Tool results masking replaced, all of them in `messages`. */
  masked: MaskedObservation[];
}

/** The message that stands for the summarised messages. */
export function summaryMessage(summary: string): ChatMessage {
  return { role: 'user', content: `${COMPACTION_SUMMARY_HEADING}\n\n${summary}` };
}

/** Whether the message at `index` is one of the caller's system or developer messages, which are never summarised. */
export function isPinned(message: ChatMessage, index: number, inputMessageCount: number): boolean {
  return (
    index < inputMessageCount &&
    (message.role === 'system' || message.role === 'developer') &&
    message.meta?.injected === undefined
  );
}

/**
 * The run's context for its next model call: the transcript with the
 * compaction's summary in place of what it summarised, then observation
 * masking (`masking`, when on) with `currentIteration` the newest iteration whose
 * results masking counts as recent, and `released` the iterations the model released.
 */
export function modelContext(
  messages: readonly ChatMessage[],
  inputMessageCount: number,
  compaction: ConversationCompaction | undefined,
  masking: { config: MaskingConfig; currentIteration: number; released?: readonly number[] } | undefined,
): ModelContext {
  const tailStart = compaction === undefined ? 0 : Math.min(compaction.throughIndex + 1, messages.length);
  const head =
    compaction === undefined
      ? []
      : [
          ...messages.slice(0, tailStart).filter((message, index) => isPinned(message, index, inputMessageCount)),
          summaryMessage(compaction.summary),
        ];
  const composed = head.length === 0 ? [...messages] : [...head, ...messages.slice(tailStart)];
  if (masking === undefined) return { messages: composed, headLength: head.length, tailStart, masked: [] };
  // Masked on what the model sees, so the event counts only results it would have seen, and names each by its call there.
  const masked = maskObservations(
    composed,
    masking.currentIteration,
    masking.config,
    toolNameLookup(composed),
    masking.released,
  );
  return { messages: masked.messages, headLength: head.length, tailStart, masked: masked.masked };
}

/** Estimated tokens of one message: its text and its tool calls' names and arguments. */
export function messageTokens(message: ChatMessage): number {
  const calls = message.role === 'assistant' ? (message.tool_calls ?? []) : [];
  return (
    estimateTokens(message.content ?? '') +
    calls.reduce((sum, call) => sum + estimateTokens(call.function.name + call.function.arguments), 0)
  );
}

/** Estimated tokens of what the model is sent: the instructions and the messages. */
export function contextTokens(messages: readonly ChatMessage[], instructions: string | undefined): number {
  return estimateTokens(instructions ?? '') + messages.reduce((sum, message) => sum + messageTokens(message), 0);
}
