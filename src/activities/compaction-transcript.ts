import type { ChatMessage } from '../shared/messages';

/**
 * The messages to summarise as one plain text, which any provider accepts and the summariser cannot mistake for its
 * own conversation.
 */
export function compactionTranscript(messages: readonly ChatMessage[]): string {
  const toolNames = new Map<string, string>();
  const parts = messages.map((message) => {
    switch (message.role) {
      case 'assistant': {
        const calls = (message.tool_calls ?? []).map((call) => {
          toolNames.set(call.id, call.function.name);
          return `[assistant called ${call.function.name} with ${call.function.arguments || '{}'}]`;
        });
        return [message.content ? `[assistant]\n${message.content}` : undefined, ...calls]
          .filter((part) => part !== undefined)
          .join('\n');
      }
      case 'tool':
        return `[result of ${toolNames.get(message.tool_call_id) ?? 'a tool'}]\n${message.content}`;
      default:
        return `[${message.role}]\n${message.content}`;
    }
  });
  return `The transcript to summarise:\n\n${parts.join('\n\n')}`;
}
