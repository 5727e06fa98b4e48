import type { Client } from '@temporalio/client';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { withTerminatingTools } from '../config/agent-tools';
import type { AgentDefaults } from '../config/api';
import { endConversation, getConversation, sendChatTurn } from '../client/conversations';
import { API_DEFAULTS } from '../shared/defaults/api';
import {
  type ChatTurnKind,
  type ChatTurnResult,
  type ConversationState,
  type TurnSettings,
} from '../shared/conversation';
import { streamChatTurn, wantsEventStream } from './chat-stream';
import type { z } from 'zod';
import { parseBody } from '../http/errors';
import { ApiError } from '../http/api-error';
import type { chatResponse as chatResponseSchema, conversationResponse } from './response-schemas';
import {
  addAiMessageBody,
  chatBody,
  conversationPathParams,
  idempotencyKeyHeader,
  invokeBody,
  toTerminating,
  type TerminatingConfigBody,
} from './schemas';
import { probeTemporal, withinDeadline } from './temporal-deadline';
import { checkModelsAllowed } from './model-allowance';
import { checkToolsAllowed } from './tool-allowance';

export type { AgentDefaults } from '../config/api';

export interface ChatRouteDeps {
  client: Client;
  taskQueue: string;
  defaults: AgentDefaults;
  /** The tools a request may name (`checkToolsAllowed`). @default every tool */
  allowedTools?: readonly string[];
  /** The models a request may name (`checkModelsAllowed`). @default every model */
  allowedModels?: readonly string[];
}

/** The request fields that shape a turn's agent, shared by the three endpoints. */
interface AgentFields {
  terminating_config?: TerminatingConfigBody | null;
  model?: string;
  instructions?: string;
  tools?: string[];
}

/**
 * The chat endpoints, each one turn on the durable conversation of
 * `context_id`, answered in the chat response format; and the conversation itself.
 */
export function registerChatRoutes(app: FastifyInstance, deps: ChatRouteDeps): void {
  const turn = async (
    kind: ChatTurnKind,
    contextId: string,
    fields: AgentFields,
    reply: FastifyReply,
    extra: { message?: string; prompt?: string },
    key: unknown,
  ) => {
    const streamed = wantsEventStream(reply.request);
    const keyParsed = key === undefined ? undefined : idempotencyKeyHeader.safeParse(key);
    if (keyParsed !== undefined && !keyParsed.success)
      throw new ApiError('invalid_header', `Idempotency-Key: use 1 to ${API_DEFAULTS.idempotencyKeyChars} characters.`);
    // The turn waits for its run, as long as that takes: reach Temporal within the deadline first, or answer 503 now.
    await probeTemporal(deps.client);
    checkToolsAllowed([...(fields.tools ?? []), ...(fields.terminating_config?.tool_ids ?? [])], deps.allowedTools);
    checkModelsAllowed(fields.model === undefined ? [] : [fields.model], deps.allowedModels);
    const settings = turnSettings(fields, deps.defaults);
    const send = () =>
      sendChatTurn(
        deps.client,
        contextId,
        { kind, ...extra, settings },
        { taskQueue: deps.taskQueue, ...(keyParsed?.data === undefined ? {} : { idempotencyKey: keyParsed.data }) },
      );
    if (streamed)
      return streamChatTurn(deps.client, contextId, send, reply, chatResponseBody, settings.model ?? 'agent-runner');
    return chatResponse(await send(), reply);
  };

  app.post('/chat', async (request, reply) => {
    const body = parseBody(chatBody, request.body);
    return turn('chat', body.context_id, body, reply, { message: body.message }, request.headers['idempotency-key']);
  });

  app.post('/chat/invoke', async (request, reply) => {
    const body = parseBody(invokeBody, request.body);
    return turn('invoke', body.context_id, body, reply, {}, request.headers['idempotency-key']);
  });

  app.post('/chat/add-ai-message', async (request, reply) => {
    const body = parseBody(addAiMessageBody, request.body);
    return turn(
      'add-ai-message',
      body.context_id,
      body,
      reply,
      body.prompt ? { prompt: body.prompt } : {},
      request.headers['idempotency-key'],
    );
  });

  app.get('/conversations/:context_id', async (request) => {
    const contextId = parseContextId(request.params);
    // The query waits for a worker (and may replay a long history): reach Temporal within the deadline first.
    await probeTemporal(deps.client);
    const conversation = await getConversation(deps.client, contextId);
    if (conversation === undefined)
      throw new ApiError('conversation_not_found', `No conversation "${contextId}" exists.`);
    return conversationBody(conversation);
  });

  app.delete('/conversations/:context_id', async (request, reply) => {
    const contextId = parseContextId(request.params);
    if (!(await withinDeadline(deps.client, () => endConversation(deps.client, contextId)))) {
      throw new ApiError('conversation_not_found', `No conversation "${contextId}" is open.`);
    }
    return reply.code(202).send({ context_id: contextId, ending: true });
  });
}

/** The turn's run input: the request's choices over the server's defaults; terminating tools join the tool list. */
export function turnSettings(fields: AgentFields, defaults: AgentDefaults): TurnSettings {
  const terminating = fields.terminating_config ? toTerminating(fields.terminating_config) : undefined;
  const model = fields.model ?? defaults.model;
  const instructions = fields.instructions ?? defaults.instructions;
  return {
    tools: withTerminatingTools(fields.tools ?? defaults.tools, terminating?.toolIds),
    ...(model === undefined ? {} : { model }),
    ...(instructions === undefined ? {} : { instructions }),
    ...(terminating === undefined ? {} : { terminating }),
  };
}

/** The chat response; the turn's run id rides in headers, so the body stays exactly the specified format. */
function chatResponse(result: ChatTurnResult, reply: FastifyReply) {
  void reply.header('agent-run-id', result.runId).header('agent-turn', String(result.turn));
  return chatResponseBody(result);
}

/** The chat response's body (streamed, the last chunk's `agent_runner` carries it). */
function chatResponseBody(result: ChatTurnResult): z.input<typeof chatResponseSchema> {
  return {
    response: result.response,
    saved_ai_messages: result.savedAiMessages,
    generated_messages: result.generatedMessages,
  };
}

function conversationBody(conversation: ConversationState): z.input<typeof conversationResponse> {
  const active = conversation.activeTurn;
  return {
    context_id: conversation.contextId,
    turns: conversation.turns,
    ended: conversation.ended,
    active_turn:
      active === undefined
        ? null
        : { turn: active.turn, kind: active.kind, run_id: active.runId, started_at: active.startedAt },
    messages: conversation.messages,
  };
}

function parseContextId(params: unknown): string {
  const parsed = conversationPathParams.safeParse(params);
  if (!parsed.success)
    throw new ApiError('invalid_context_id', `context_id: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data.context_id;
}
