import { z } from 'zod';
import { contextIdSchema } from '../../shared/conversation';
import { ApiError } from '../../http/api-error';

/**
 * `POST /ui/chat`'s body, as the AI SDK's `DefaultChatTransport` sends it (`id`, `messages`, `trigger`,
 * `messageId`), with the fields of `POST /chat` that choose a turn's agent. Only the last message is read: the
 * conversation keeps the history, so the client's copy of it is never trusted.
 */

/** One part of a UI message; only text and tool parts are read, the rest are kept as they came. */
const uiPartSchema = z.looseObject({ type: z.string() });

/** One UI message (`ai`'s `UIMessage`): an id, a role and parts. */
const uiMessageSchema = z.looseObject({
  id: z.string(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(uiPartSchema),
});

/** The body of `POST /ui/chat`. */
export const uiChatBody = z.strictObject({
  id: contextIdSchema.describe("The chat's id: the `context_id` of its durable conversation."),
  messages: z.array(uiMessageSchema).min(1, 'give at least the new message'),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().optional(),
  model: z.string().min(1).optional(),
  instructions: z.string().optional(),
  tools: z.array(z.string().min(1)).optional(),
  approval_tools: z
    .array(z.string().min(1))
    .optional()
    .describe('Tools whose calls wait for a decision, besides those that declare `needsApproval`.'),
});
export type UiChatBody = z.infer<typeof uiChatBody>;

/** The path of `GET /ui/chat/:id/stream`. */
export const uiChatPathParams = z.strictObject({ id: contextIdSchema.describe("The chat's id.") });

/** An answer to an approval request, as `addToolApprovalResponse` leaves it in a tool part. */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  reason?: string;
  signature?: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** What a request asks: a new turn with the user's text, or decisions on the calls the turn waits on. */
export type UiChatAsk = { kind: 'message'; text: string } | { kind: 'approvals'; answers: ApprovalAnswer[] };

/** A tool part in state `approval-responded`, read without trusting any field. */
const respondedPartSchema = z.looseObject({
  type: z.string(),
  toolCallId: z.string(),
  toolName: z.string().optional(),
  state: z.literal('approval-responded'),
  input: z.unknown(),
  approval: z.looseObject({
    id: z.string(),
    approved: z.boolean(),
    reason: z.string().optional(),
    signature: z.string().optional(),
  }),
});

/** What the request's last message asks; a 400 when it asks nothing this endpoint does. */
export function readUiChatAsk(body: UiChatBody): UiChatAsk {
  if (body.trigger === 'regenerate-message')
    throw new ApiError(
      'invalid_body',
      'trigger: "regenerate-message" is not supported: a durable conversation keeps every turn; send a new message.',
    );
  const last = body.messages[body.messages.length - 1] as UiChatBody['messages'][number];
  if (last.role === 'user') {
    const text = last.parts
      .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
      .join('')
      .trim();
    if (text === '') throw new ApiError('invalid_body', "messages: the last user message has no text part's text.");
    return { kind: 'message', text };
  }
  const answers: ApprovalAnswer[] = [];
  for (const part of last.parts) {
    if (part.type !== 'dynamic-tool' && !part.type.startsWith('tool-')) continue;
    const parsed = respondedPartSchema.safeParse(part);
    if (!parsed.success) continue;
    const { approval } = parsed.data;
    answers.push({
      approvalId: approval.id,
      approved: approval.approved,
      ...(approval.reason === undefined ? {} : { reason: approval.reason }),
      ...(approval.signature === undefined ? {} : { signature: approval.signature }),
      toolCallId: parsed.data.toolCallId,
      toolName: parsed.data.toolName ?? part.type.slice('tool-'.length),
      input: parsed.data.input,
    });
  }
  if (answers.length === 0)
    throw new ApiError(
      'invalid_body',
      'messages: the last message is neither a user message nor an assistant message with an answered approval.',
    );
  return { kind: 'approvals', answers };
}
