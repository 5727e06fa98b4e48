import type { ServerResponse } from 'node:http';
import { MODEL_STREAM_DEFAULTS } from '../shared/defaults/model-stream';

/**
 * A scripted answer as a chat-completions stream, a word or a few argument characters per chunk, then `[DONE]`.
 */

/** A complete answer, as the non-streamed reply would carry it. */
export interface StreamedAnswer {
  id: string;
  model: string;
  content: string | null;
  reasoning?: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  /** Sent in a last chunk with no choices, when the request asked (`stream_options.include_usage`). */
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
    completion_tokens_details?: { reasoning_tokens: number };
  };
}

/** One chunk written: when (ms since the epoch, fractional) and what it carried, for latency measurements. */
export interface SentChunk {
  at: number;
  /** The chunk's text fragment, reasoning or tool-call arguments; '' for chunks that carry none. */
  text: string;
}

/** How a stream is written. */
export interface StreamPacing {
  tokenDelayMs: number;
  /** Cut the connection after this many chunks. */
  breakAfterChunks?: number;
  /** Told of each chunk as it is written. */
  onSent?: (chunk: SentChunk) => void;
}

/** The chunks of `answer`, in order: reasoning, text, tool calls, the finish reason, usage. */
export function answerChunks(answer: StreamedAnswer): { payload: unknown; text: string }[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: answer.id,
    object: 'chat.completion.chunk',
    created,
    model: answer.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const chunks: { payload: unknown; text: string }[] = [
    { payload: chunk({ role: 'assistant', content: '' }), text: '' },
  ];
  for (const token of tokens(answer.reasoning ?? ''))
    chunks.push({ payload: chunk({ reasoning_content: token }), text: token });
  for (const token of tokens(answer.content ?? '')) chunks.push({ payload: chunk({ content: token }), text: token });
  for (const [index, call] of answer.toolCalls.entries()) {
    chunks.push({
      payload: chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
      text: '',
    });
    for (const fragment of pieces(call.arguments, MODEL_STREAM_DEFAULTS.scriptedArgumentChars)) {
      chunks.push({ payload: chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }), text: fragment });
    }
  }
  chunks.push({ payload: chunk({}, answer.finishReason), text: '' });
  if (answer.usage !== undefined) {
    chunks.push({
      payload: {
        id: answer.id,
        object: 'chat.completion.chunk',
        created,
        model: answer.model,
        choices: [],
        usage: answer.usage,
      },
      text: '',
    });
  }
  return chunks;
}

/**
 * Writes `chunks` as Server-Sent Events, `pacing.tokenDelayMs` apart, then
 * `[DONE]` (unless `done` is false); or cuts the connection after
 * `pacing.breakAfterChunks`. Stops quietly when the client goes away.
 */
export async function writeStream(
  response: ServerResponse,
  chunks: readonly { payload: unknown; text: string }[],
  pacing: StreamPacing,
  done = true,
): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  response.flushHeaders();
  for (const [index, { payload, text }] of chunks.entries()) {
    if (pacing.breakAfterChunks !== undefined && index >= pacing.breakAfterChunks) {
      // A provider that fails mid-answer: the connection ends with neither `[DONE]` nor a finish reason,
      // after what was written has left (a destroy would drop it).
      await new Promise((resolve) => response.write('', resolve));
      response.destroy();
      return;
    }
    if (pacing.tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, pacing.tokenDelayMs));
    if (response.destroyed || response.writableEnded) return;
    response.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
    pacing.onSent?.({ at: performance.timeOrigin + performance.now(), text });
  }
  if (done && !response.destroyed) response.write('data: [DONE]\n\n');
  response.end();
}

/** Words with the spaces after them ("Hello ", "world."), as a model's tokens come, roughly. */
function tokens(text: string): string[] {
  return text.match(/\s*\S+\s*|\s+/g) ?? [];
}

function pieces(text: string, size: number): string[] {
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result;
}
