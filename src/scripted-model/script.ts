/**
 * The steps a scripted model plays back, one per chat-completions request.
 * Plain data, so a test reads as a conversation.
 */

/** A tool call the scripted model makes; object arguments are sent as JSON text. */
export interface ScriptedToolCall {
  name: string;
  arguments?: string | Record<string, unknown>;
  id?: string;
}

/** An answer: text, tool calls, or both. */
export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Wait this long before answering (to watch a run mid-call). */
  delayMs?: number;
}

/** An HTTP error answer, as a provider would send it. */
export interface ScriptedError {
  error: {
    status: number;
    message: string;
    code?: string;
    headers?: Record<string, string>;
  };
}

export type ScriptStep = ScriptedReply | ScriptedError;

/** The request as the server received it. */
export interface ChatCompletionRequest {
  model: string;
  messages: { role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  parallel_tool_calls?: boolean;
  [key: string]: unknown;
}

/** Decides each answer from the conversation (the demo's offline agent). */
export type Responder = (request: ChatCompletionRequest) => ScriptStep;

export function isScriptedError(step: ScriptStep): step is ScriptedError {
  return 'error' in step;
}
