/**
 * The chunks of the AI SDK's UI message stream that `POST /ui/chat` writes, as the `ai` package 7.0.173 defines
 * them (its `ui-message-stream/ui-message-chunks.ts`). Our own types, so the published package does not depend on
 * `ai`; `test/unit/ui-chat-protocol.test.ts` checks they are assignable to its `UIMessageChunk`.
 */

/** Why a message ended, from the AI SDK's `FinishReason`. */
type UiFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** One chunk of the stream; tool parts are `dynamic` because the client holds no schema of the server's tools. */
export type UiMessageChunk =
  | { type: 'start'; messageId?: string }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'reset-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string; dynamic: true }
  | { type: 'tool-input-delta'; toolCallId: string; inputTextDelta: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown; dynamic: true }
  | { type: 'tool-input-error'; toolCallId: string; toolName: string; input: unknown; errorText: string; dynamic: true }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string; reason?: string; signature?: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown; dynamic: true }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string; dynamic: true }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'finish'; finishReason?: UiFinishReason }
  | { type: 'error'; errorText: string }
  | { type: 'abort'; reason?: string };

/** The headers of a UI message stream: Server-Sent Events, and the protocol's version header. */
export const UI_MESSAGE_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  'x-vercel-ai-ui-message-stream': 'v1',
} as const;

/** A chunk as one Server-Sent Event. */
export function chunkFrame(chunk: UiMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** The stream's last event. */
export const DONE_FRAME = 'data: [DONE]\n\n';
