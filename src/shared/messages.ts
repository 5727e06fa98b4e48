import { z } from 'zod';

/**
 * The conversation, in OpenAI chat-completions format. What the model sees is
 * exactly this list (plus the run's instructions as a leading system message);
 * runner bookkeeping rides along in `meta`, which is stripped before sending.
 */

/** A function call requested by the model. `arguments` is the raw JSON text the model produced. */
export const toolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1),
    arguments: z.string(),
  }),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/** Why the runner (not the caller or the model) added a message. */
export const messageMetaSchema = z.object({
  injected: z.enum(['nudge', 'restriction', 'loop_warning', 'error_context']).optional(),
  iteration: z.number().int().optional(),
  /**
   * On an assistant message: the model's own id of each call, by the runner's id the
   * transcript uses. Kept only to show the model its calls under the ids it gave them.
   */
  modelCallIds: z.record(z.string(), z.string()).optional(),
});
export type MessageMeta = z.infer<typeof messageMetaSchema>;

const meta = { meta: messageMetaSchema.optional() };

export const chatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string(), ...meta }),
  z.object({ role: z.literal('developer'), content: z.string(), ...meta }),
  z.object({ role: z.literal('user'), content: z.string(), name: z.string().optional(), ...meta }),
  z.object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z.array(toolCallSchema).optional(),
    ...meta,
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string(), ...meta }),
]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;
export type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/** Token counts, summed over every model call of a run. */
export const usageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof usageSchema>;

export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** Adds two usage records. */
export function addUsage(left: Usage, right: Usage): Usage {
  return {
    promptTokens: left.promptTokens + right.promptTokens,
    completionTokens: left.completionTokens + right.completionTokens,
    totalTokens: left.totalTokens + right.totalTokens,
  };
}
