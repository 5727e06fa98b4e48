import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatMessage, ToolCall } from '../shared/messages';

/**
 * A conversation message as the provider is sent it: `meta` removed, and a tool call's `arguments` that are not JSON
 * replaced by {@link WIRE_ARGUMENTS_PLACEHOLDER}, since servers such as llama.cpp refuse (500, on every attempt) a
 * history holding a call cut off by the token cap. Done in the activity, so the recorded history is unchanged.
 */
export function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { meta, ...wire } = message;
  if (wire.role !== 'assistant' || wire.tool_calls === undefined || wire.tool_calls.every(hasJsonArguments))
    return wire as ChatCompletionMessageParam;
  return {
    ...wire,
    tool_calls: wire.tool_calls.map((call) =>
      hasJsonArguments(call)
        ? call
        : { ...call, function: { ...call.function, arguments: WIRE_ARGUMENTS_PLACEHOLDER } },
    ),
  } as ChatCompletionMessageParam;
}

/** What a call's arguments that are not JSON become on the wire: an empty object, valid for every server. */
const WIRE_ARGUMENTS_PLACEHOLDER = '{}';

/**
 * Whether a call's arguments are JSON a server can parse. Empty text is not: some providers send `""` for a call
 * without arguments (the runner reads it as `{}`), and it goes back as `{}`.
 */
function hasJsonArguments(call: ToolCall): boolean {
  try {
    JSON.parse(call.function.arguments);
    return true;
  } catch {
    return false;
  }
}
