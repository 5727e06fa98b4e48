import type { ChatMessage } from '../../shared/messages';
import type { GeneratedMessage } from '../../shared/agent-result';
import { parseArgumentsLeniently } from './tool-arguments';

/**
 * The chat endpoints' response format for the messages a run added: human messages,
 * the model's text, each tool call with its parsed input, and each tool
 * response. Injected system messages are runner bookkeeping and are left out.
 */
export function toGeneratedMessages(messages: readonly ChatMessage[]): GeneratedMessage[] {
  return messages.flatMap((message): GeneratedMessage[] => {
    switch (message.role) {
      case 'user':
        return [{ sender: 'human', message: message.content }];
      case 'assistant': {
        const text: GeneratedMessage[] = message.content ? [{ sender: 'ai', message: message.content }] : [];
        const calls: GeneratedMessage[] = (message.tool_calls ?? []).map((call) => ({
          type: 'tool_call',
          tool_call_id: call.id,
          tool_name: call.function.name,
          tool_input: parseArgumentsLeniently(call.function.arguments),
        }));
        return [...text, ...calls];
      }
      case 'tool':
        return [{ type: 'tool_response', tool_call_id: message.tool_call_id, tool_output: message.content }];
      default:
        return [];
    }
  });
}
