import { z } from 'zod';
import { builtOnce } from './built-once';
import { type AgentResult, agentResultSchema, type GeneratedMessage } from './agent-result';
import type { ChatMessage } from './messages';
import type { ClosedRunRecord } from './closed-run';

/**
 * A run's result carries a large final answer once: its repetitions in `messages` and `generatedMessages` are emptied
 * and listed in `responseRepeatedAt`, and every reader restores them with {@link withAnswerRestored}.
 */

/** The places that repeat `response`, carried empty: indexes into `messages` and `generatedMessages`. */
const responseRepeatedAtSchema = builtOnce('resultAnswer.responseRepeatedAt', () =>
  z.object({
    messages: z.array(z.number().int().nonnegative()),
    generatedMessages: z.array(z.number().int().nonnegative()),
  }),
);
type ResponseRepeatedAt = z.infer<typeof responseRepeatedAtSchema>;

/**
 * What `agentWorkflow` returns: an {@link AgentResult}, whose repetitions of
 * `response` may be left out (listed in `responseRepeatedAt`). Results of runs
 * started before it, and small answers, never have the field.
 */
export const agentWorkflowResultSchema = builtOnce('resultAnswer.agentWorkflowResult', () =>
  agentResultSchema.extend({ responseRepeatedAt: responseRepeatedAtSchema.optional() }),
);
export type AgentWorkflowResult = AgentResult & {
  responseRepeatedAt?: ResponseRepeatedAt;
  closedRun?: ClosedRunRecord;
};

/** `result` with the repetitions of its `response` in `messages` and `generatedMessages` emptied and listed. */
export function withAnswerOnce(result: AgentResult): AgentWorkflowResult {
  const { response } = result;
  if (response === '') return result;
  const messageIndexes: number[] = [];
  const messages = result.messages.map((message, index): ChatMessage => {
    if (!repeatsInMessage(message, response)) return message;
    messageIndexes.push(index);
    return { ...message, content: '' } as ChatMessage;
  });
  const generatedIndexes: number[] = [];
  const generatedMessages = result.generatedMessages.map((message, index): GeneratedMessage => {
    const emptied = emptiedGenerated(message, response);
    if (emptied === undefined) return message;
    generatedIndexes.push(index);
    return emptied;
  });
  if (messageIndexes.length === 0 && generatedIndexes.length === 0) return result;
  return {
    ...result,
    messages,
    generatedMessages,
    responseRepeatedAt: { messages: messageIndexes, generatedMessages: generatedIndexes },
  };
}

/**
 * The full result: `response` back in every place `responseRepeatedAt`
 * lists, and that field and `closedRun` (the readers' own) gone. A result
 * without them (a run started before them, a small answer) is returned as it is.
 */
export function withAnswerRestored(result: AgentWorkflowResult): AgentResult {
  if (result.responseRepeatedAt === undefined && result.closedRun === undefined) return result;
  const { responseRepeatedAt, ...rest } = result;
  delete rest.closedRun;
  if (responseRepeatedAt === undefined) return rest;
  const { response } = rest;
  const messageIndexes = new Set(responseRepeatedAt.messages);
  const generatedIndexes = new Set(responseRepeatedAt.generatedMessages);
  return {
    ...rest,
    messages: rest.messages.map((message, index) =>
      messageIndexes.has(index) ? ({ ...message, content: response } as ChatMessage) : message,
    ),
    generatedMessages: rest.generatedMessages.map((message, index) =>
      generatedIndexes.has(index) ? refilledGenerated(message, response) : message,
    ),
  };
}

/** Whether `message` is the model's text or a tool's output that is exactly `response`. */
function repeatsInMessage(message: ChatMessage, response: string): boolean {
  return (message.role === 'assistant' || message.role === 'tool') && message.content === response;
}

/** `message` with its text emptied when it is the model's text or a tool's output that is exactly `response`. */
function emptiedGenerated(message: GeneratedMessage, response: string): GeneratedMessage | undefined {
  if ('sender' in message)
    return message.sender === 'ai' && message.message === response ? { ...message, message: '' } : undefined;
  if (message.type === 'tool_response' && message.tool_output === response) return { ...message, tool_output: '' };
  return undefined;
}

function refilledGenerated(message: GeneratedMessage, response: string): GeneratedMessage {
  if ('sender' in message) return { ...message, message: response };
  if (message.type === 'tool_response') return { ...message, tool_output: response };
  return message;
}
