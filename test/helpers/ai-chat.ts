import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Json } from './api';

/** What the AI SDK's client made of one request: the message it built, the chunks it read, the errors it reported. */
export interface AiChatAnswer {
  ok: boolean;
  message?: Json;
  chunks?: Json[];
  errors?: string[];
  /** `reconnectToStream` answered null: no stream to resume (204). */
  none?: boolean;
  error?: { name?: string; message: string; statusCode?: number };
}

/** One request of the AI SDK's client (`test/helpers/ai-chat-client.mjs`), in a Node process of its own. */
export interface AiChatRequest {
  op: 'send' | 'resume';
  url: string;
  token: string;
  chatId: string;
  messages?: Json[];
  /** The assistant message the stream continues (after an approval). */
  message?: Json;
  body?: Record<string, unknown>;
  /** Abort the request after this many chunks, as a page that reloads does. */
  abortAfter?: number;
}

const script = path.join(__dirname, 'ai-chat-client.mjs');

/** Runs the AI SDK's `DefaultChatTransport` and `readUIMessageStream` for `request`. */
export function aiChat(request: AiChatRequest): Promise<AiChatAnswer> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [script, JSON.stringify(request)],
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null) reject(new Error(`ai-chat-client failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as AiChatAnswer);
      },
    );
  });
}

/** A user message as `useChat` sends it. */
export function userMessage(text: string, id = `u-${randomUUID().slice(0, 8)}`): Json {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

/** The message with its tool part of `toolCallId` answered, as `addToolApprovalResponse` leaves it. */
export function answered(message: Json, toolCallId: string, approved: boolean, reason?: string): Json {
  return {
    ...message,
    parts: message.parts.map((part: Json) =>
      part.toolCallId === toolCallId
        ? {
            ...part,
            state: 'approval-responded',
            approval: { ...part.approval, approved, ...(reason === undefined ? {} : { reason }) },
          }
        : part,
    ),
  };
}
