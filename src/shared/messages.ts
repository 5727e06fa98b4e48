import { z } from 'zod';
import { builtOnce } from './built-once';
import { INPUT_BOUNDS } from './defaults/input-bounds';

/**
 * The conversation, in OpenAI chat-completions format. What the model sees is
 * exactly this list (plus the run's instructions as a leading system message);
 * runner bookkeeping rides along in `meta`, which is stripped before sending.
 */

/** Lengths a message schema holds its strings and tool calls to; the run's input uses {@link INPUT_BOUNDS}. */
interface MessageBounds {
  textChars: number;
  nameChars: number;
  toolCallsPerMessage: number;
}

const UNBOUNDED: MessageBounds = { textChars: Infinity, nameChars: Infinity, toolCallsPerMessage: Infinity };

/** A string of at most `limit` characters; no check at all when unbounded, so the schemas stay as they were. */
function upTo(limit: number) {
  return Number.isFinite(limit) ? z.string().max(limit) : z.string();
}

/** An array of at most `limit` items; no check when unbounded. */
function upToItems<Item extends z.ZodType>(item: Item, limit: number) {
  return Number.isFinite(limit) ? z.array(item).max(limit) : z.array(item);
}

function buildToolCallSchema(bounds: MessageBounds) {
  return z.object({
    id: upTo(bounds.nameChars).min(1),
    type: z.literal('function'),
    function: z.object({
      name: upTo(bounds.nameChars).min(1),
      arguments: upTo(bounds.textChars),
    }),
  });
}

/** A function call requested by the model. `arguments` is the raw JSON text the model produced. Exported for whoever documents or validates the shape. @public */
export const toolCallSchema = builtOnce('messages.toolCall', () => buildToolCallSchema(UNBOUNDED));
export type ToolCall = z.infer<typeof toolCallSchema>;

/** Why the runner (not the caller or the model) added a message. */
export const messageMetaSchema = builtOnce('messages.meta', () =>
  z.object({
    injected: z.enum(['nudge', 'restriction', 'loop_warning', 'error_context', 'continuation']).optional(),
    iteration: z.number().int().optional(),
    /**
     * On an assistant message: the model's own id of each call, by the runner's id the
     * transcript uses. Kept only to show the model its calls under the ids it gave them.
     */
    modelCallIds: z.record(z.string(), z.string()).optional(),
  }),
);
export type MessageMeta = z.infer<typeof messageMetaSchema>;

function buildChatMessageSchema(bounds: MessageBounds) {
  const text = upTo(bounds.textChars);
  const meta = { meta: messageMetaSchema.optional() };
  return z.discriminatedUnion('role', [
    z.object({ role: z.literal('system'), content: text, ...meta }),
    z.object({ role: z.literal('developer'), content: text, ...meta }),
    z.object({ role: z.literal('user'), content: text, name: upTo(bounds.nameChars).optional(), ...meta }),
    z.object({
      role: z.literal('assistant'),
      content: text.nullable(),
      tool_calls: upToItems(buildToolCallSchema(bounds), bounds.toolCallsPerMessage).optional(),
      ...meta,
    }),
    z.object({ role: z.literal('tool'), tool_call_id: upTo(bounds.nameChars).min(1), content: text, ...meta }),
  ]);
}

/** One message of a conversation, any length (what a run produced; its size is the size guards' business). */
export const chatMessageSchema = builtOnce('messages.chatMessage', () => buildChatMessageSchema(UNBOUNDED));

/** One message of a run's input conversation, held to {@link INPUT_BOUNDS}. */
export const inputChatMessageSchema = builtOnce('messages.inputChatMessage', () =>
  buildChatMessageSchema(INPUT_BOUNDS),
);
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;
export type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/** Token counts, summed over every model call of a run, and what they cost where the worker knows the price. */
export const usageSchema = builtOnce('messages.usage', () =>
  z.object({
    promptTokens: z.number().int().nonnegative(),
    completionTokens: z.number().int().nonnegative(),
    totalTokens: z.number().int().nonnegative(),
    /**
     * US dollars, from the worker's price table (`src/shared/prices.ts`): present once a call was priced,
     * summed over the calls that were. Absent when no call was (no table, or the model is not in it).
     */
    costUsd: z.number().nonnegative().optional(),
    /**
     * Some of these tokens are estimates (about four characters a token): those of model-call attempts that
     * failed or timed out before the provider counted them. Absent when every count came from the provider.
     */
    estimated: z.literal(true).optional(),
    /**
     * Of `promptTokens`, those the provider read from its prompt cache (`prompt_tokens_details.cached_tokens`),
     * summed over the calls whose provider reported them. Absent when none did: unknown, not zero.
     */
    cachedPromptTokens: z.number().int().nonnegative().optional(),
    /**
     * Of `completionTokens`, those the model spent reasoning (`completion_tokens_details.reasoning_tokens`),
     * summed over the calls whose provider reported them. Absent when none did: unknown, not zero.
     */
    reasoningTokens: z.number().int().nonnegative().optional(),
    /**
     * `costUsd` prices some cached prompt tokens at the full input price: their model's price has no
     * `cachedInputPerMTok`. Absent when every cached token was priced at its own rate (or none was cached).
     */
    cachedAtInputPrice: z.literal(true).optional(),
  }),
);
export type Usage = z.infer<typeof usageSchema>;

export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** `costUsd` of a sum or difference: absent when neither side has one, so unpriced usage stays as it was. */
function combinedCost(left: Usage, right: Usage, sign: 1 | -1): { costUsd?: number } {
  if (left.costUsd === undefined && right.costUsd === undefined) return {};
  // Rounded to a nano-dollar: sums of binary fractions would otherwise print as 0.30000000000000004.
  return { costUsd: Math.max(0, Math.round(((left.costUsd ?? 0) + sign * (right.costUsd ?? 0)) * 1e9) / 1e9) };
}

/** The token details a provider may leave out: summed where either side reports them, else absent. */
const DETAIL_COUNTS = ['cachedPromptTokens', 'reasoningTokens'] as const;

/** Each detail count of a sum or difference: absent when neither side has it, so an unreported count stays unknown. */
function combinedDetails(left: Usage, right: Usage, sign: 1 | -1): Partial<Usage> {
  const details: Partial<Usage> = {};
  for (const key of DETAIL_COUNTS) {
    if (left[key] === undefined && right[key] === undefined) continue;
    details[key] = Math.max(0, (left[key] ?? 0) + sign * (right[key] ?? 0));
  }
  return details;
}

/** Adds two usage records (their costs and token details too, where either has them). */
export function addUsage(left: Usage, right: Usage): Usage {
  return {
    promptTokens: left.promptTokens + right.promptTokens,
    completionTokens: left.completionTokens + right.completionTokens,
    totalTokens: left.totalTokens + right.totalTokens,
    ...combinedCost(left, right, 1),
    ...(left.estimated === true || right.estimated === true ? { estimated: true as const } : {}),
    ...combinedDetails(left, right, 1),
    ...(left.cachedAtInputPrice === true || right.cachedAtInputPrice === true
      ? { cachedAtInputPrice: true as const }
      : {}),
  };
}

/** Tokens (and cost) used since `before`: what a part of a run (its current turn) has spent. */
export function subtractUsage(total: Usage, before: Usage): Usage {
  return {
    promptTokens: total.promptTokens - before.promptTokens,
    completionTokens: total.completionTokens - before.completionTokens,
    totalTokens: total.totalTokens - before.totalTokens,
    ...combinedCost(total, before, -1),
    ...combinedDetails(total, before, -1),
  };
}
