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
  /** Reasoning the model shows before its answer: streamed as `reasoning_content` deltas, sent as `reasoning_content`. */
  reasoning?: string;
  /** When streamed: the pause before each chunk, in ms (the server's `tokenDelayMs` when absent). */
  tokenDelayMs?: number;
  /**
   * When streamed: cut the connection after this many chunks, without `[DONE]`, as a
   * provider or proxy that fails mid-answer does. A request that is not streamed is answered whole.
   */
  breakAfterChunks?: number;
  /**
   * The finish reason sent, as a provider that cut the answer at its token cap sends `length`.
   * @default 'tool_calls' with tool calls, else 'stop'
   */
  finishReason?: string;
  /** Send no usage (neither in the body nor as a stream's last chunk), as servers that ignore `include_usage` do. */
  omitUsage?: true;
  /**
   * Report this many of the prompt's tokens as read from the cache (`prompt_tokens_details.cached_tokens`), as
   * providers with prompt caching do; cut to the prompt's count. Absent: no `prompt_tokens_details`.
   */
  cachedTokens?: number;
  /**
   * Report this many reasoning tokens (`completion_tokens_details.reasoning_tokens`), counted in the completion's
   * tokens as providers count them. Absent: no `completion_tokens_details`.
   */
  reasoningTokens?: number;
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

/**
 * A 2xx (or any) answer sent exactly as given, to play a provider that is
 * wrong: an HTML page, text that is not JSON, a completion without `choices`
 * or with a malformed tool call.
 */
export interface ScriptedRawReply {
  raw: {
    /** Sent as it is when a string; any other value is sent as its JSON text. */
    body: unknown;
    /** @default 200 */
    status?: number;
    /** @default 'application/json' */
    contentType?: string;
  };
}

/** An error whose message repeats the bearer key the request came with, as some providers' 401s do. */
export interface ScriptedKeyEcho {
  echoKey: {
    /** @default 401 */
    status?: number;
  };
}

/**
 * A streamed answer sent exactly as given, to play a provider whose stream is
 * wrong: each chunk is one `data:` event (a string as it is, any other value
 * as its JSON text), then `data: [DONE]` unless `done` is false.
 */
export interface ScriptedRawStream {
  rawStream: {
    chunks: unknown[];
    /** @default true */
    done?: boolean;
    /** The pause before each chunk, in ms. @default 0 */
    tokenDelayMs?: number;
  };
}

export type ScriptStep = ScriptedReply | ScriptedError | ScriptedRawReply | ScriptedKeyEcho | ScriptedRawStream;

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

export function isScriptedRawReply(step: ScriptStep): step is ScriptedRawReply {
  return 'raw' in step;
}

export function isScriptedKeyEcho(step: ScriptStep): step is ScriptedKeyEcho {
  return 'echoKey' in step;
}

export function isScriptedRawStream(step: ScriptStep): step is ScriptedRawStream {
  return 'rawStream' in step;
}
