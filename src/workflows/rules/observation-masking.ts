import type { MaskingConfig } from '../../shared/loop-guard-schemas';
import type { ChatMessage } from '../../shared/messages';
import { CHARS_PER_TOKEN_ESTIMATE } from '../../shared/defaults/context-control';

/**
 * Observation masking: large tool results of older iterations become placeholders in the copy the model sees; the tool
 * message itself stays, so every call still has its answer.
 */

/** One tool result that {@link maskObservations} replaced. */
export interface MaskedObservation {
  toolCallId: string;
  /** From `toolNameOf`; `unknown tool` when it knows none. */
  toolName: string;
  /** The `meta.iteration` of the tool message. */
  iteration: number;
  /** Estimated tokens of the original content. */
  tokens: number;
}

/** Rough token count of `text`: one token per {@link CHARS_PER_TOKEN_ESTIMATE} characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN_ESTIMATE);
}

/** The content that replaces a masked tool result. */
export function maskedObservationText(toolName: string, iteration: number, tokens: number): string {
  return `[Masked: ${toolName} result from iteration ${iteration}, about ${tokens} tokens. Call the tool again if you need it.]`;
}

/**
 * `messages` with {@link maskedObservationText} in place of each tool result of at least `minTokens` from an
 * iteration older than the newest `keepIterations` (`currentIteration` included) or `released` by the model.
 * Tool messages without `meta.iteration` (a caller's prior conversation) are never masked; nothing is modified.
 */
export function maskObservations(
  messages: readonly ChatMessage[],
  currentIteration: number,
  config: MaskingConfig,
  toolNameOf: (toolCallId: string, index: number) => string | undefined,
  released: readonly number[] = [],
): { messages: ChatMessage[]; masked: MaskedObservation[] } {
  const newestMasked = currentIteration - config.keepIterations;
  const releasedSet = new Set(released);
  const masked: MaskedObservation[] = [];
  const result = messages.map((message, index): ChatMessage => {
    const iteration = message.meta?.iteration;
    if (message.role !== 'tool' || iteration === undefined || (iteration > newestMasked && !releasedSet.has(iteration)))
      return message;
    const tokens = estimateTokens(message.content);
    if (tokens < config.minTokens) return message;
    const toolName = toolNameOf(message.tool_call_id, index) ?? 'unknown tool';
    masked.push({ toolCallId: message.tool_call_id, toolName, iteration, tokens });
    return { ...message, content: maskedObservationText(toolName, iteration, tokens) };
  });
  return { messages: result, masked };
}

/**
 * A `toolNameOf` for {@link maskObservations} that reads the tool names from
 * the assistant messages' `tool_calls` in `messages`. A tool message is
 * matched with the assistant message before it, so an id that two turns of a
 * conversation share names the right tool; by id alone only as a fallback.
 */
export function toolNameLookup(
  messages: readonly ChatMessage[],
): (toolCallId: string, index?: number) => string | undefined {
  const byId = new Map<string, string>();
  const byIndex = new Map<number, string>();
  let current = new Map<string, string>();
  messages.forEach((message, index) => {
    if (message.role === 'assistant') {
      current = new Map((message.tool_calls ?? []).map((call) => [call.id, call.function.name]));
      for (const [id, name] of current) byId.set(id, name);
    } else if (message.role === 'tool') {
      const name = current.get(message.tool_call_id);
      if (name !== undefined) byIndex.set(index, name);
    }
  });
  return (toolCallId, index) => (index === undefined ? undefined : byIndex.get(index)) ?? byId.get(toolCallId);
}
