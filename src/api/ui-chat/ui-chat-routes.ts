import type { Client } from '@temporalio/client';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getConversation, startChatTurn } from '../../client/conversations';
import { decideToolCall } from '../../client/run-control';
import { API_DEFAULTS } from '../../shared/defaults/api';
import { type TurnSettings } from '../../shared/conversation';
import { bindingProblem, verifyApprovalSignature, type BoundCall } from '../approval-binding';
import { turnSettings, type AgentDefaults } from '../chat-routes';
import { parseBody } from '../../http/errors';
import { ApiError } from '../../http/api-error';
import { RunSubscriptions } from '../run-subscriptions';
import { allows, UI_CHAT_DECIDE_SCOPE } from '../scopes';
import { probeTemporal } from '../temporal-deadline';
import { checkModelsAllowed } from '../model-allowance';
import { checkToolsAllowed } from '../tool-allowance';
import { streamTurn, type TurnStreamDeps } from './turn-stream';
import { readUiChatAsk, type ApprovalAnswer, type UiChatBody, uiChatBody, uiChatPathParams } from './ui-chat-request';

/** What the AI SDK chat routes need. */
export interface UiChatRouteDeps {
  client: Client;
  taskQueue: string;
  defaults: AgentDefaults;
  /** The tools a request may name (`checkToolsAllowed`). @default every tool */
  allowedTools?: readonly string[];
  /** The models a request may name (`checkModelsAllowed`). @default every model */
  allowedModels?: readonly string[];
  /** Comment lines that keep an idle stream open. @default 15 s (`API_DEFAULTS.keepAliveMs`) */
  keepAliveMs?: number;
  /** Sign approval requests and check answers' signatures, as the AI SDK's `experimental_toolApprovalSecret`. */
  approvalSecret?: string;
  /** The process's one follow per run, shared with the run routes' event streams. @default a follow of its own */
  subscriptions?: RunSubscriptions;
}

/**
 * The AI SDK's chat protocol on durable conversations: `POST /ui/chat` runs a turn on the conversation of the
 * chat's `id`, or decides the calls its turn waits on, and answers the UI message stream; `GET
 * /ui/chat/:id/stream` replays the turn in progress (204 when there is none), for `useChat({ resume: true })`.
 */
export function registerUiChatRoutes(app: FastifyInstance, deps: UiChatRouteDeps): void {
  const streams = new Set<AbortController>();
  const closing = new AbortController();
  app.addHook('preClose', async () => {
    closing.abort();
    for (const stream of streams) stream.abort();
  });
  const streamDeps: TurnStreamDeps = {
    client: deps.client,
    subscriptions: deps.subscriptions ?? new RunSubscriptions(deps.client),
    streams,
    settling: new Map(),
    closing: closing.signal,
    keepAliveMs: deps.keepAliveMs ?? API_DEFAULTS.keepAliveMs,
    ...(deps.approvalSecret === undefined ? {} : { approvalSecret: deps.approvalSecret }),
  };

  app.post('/ui/chat', async (request, reply) => {
    const body = parseBody(uiChatBody, request.body);
    const ask = readUiChatAsk(body);
    if (ask.kind === 'approvals') requireDecideScope(request);
    // The turn waits for its run, as long as that takes: reach Temporal within the deadline first, or answer 503 now.
    await probeTemporal(deps.client);
    if (ask.kind === 'message') {
      checkToolsAllowed([...(body.tools ?? []), ...(body.approval_tools ?? [])], deps.allowedTools);
      checkModelsAllowed(body.model === undefined ? [] : [body.model], deps.allowedModels);
      const { runId } = await startChatTurn(
        deps.client,
        body.id,
        { kind: 'chat', message: ask.text, settings: uiTurnSettings(body, deps.defaults) },
        { taskQueue: deps.taskQueue },
      );
      return streamTurn(streamDeps, reply, { contextId: body.id, runId });
    }
    const decided = await decideAnswers(deps, request, body.id, ask.answers);
    return streamTurn(streamDeps, reply, {
      contextId: body.id,
      runId: decided.runId,
      continueAfter: new Set(decided.callIds),
    });
  });

  app.get('/ui/chat/:id/stream', async (request, reply) => {
    const params = uiChatPathParams.safeParse(request.params);
    if (!params.success)
      throw new ApiError('invalid_context_id', `id: ${params.error.issues[0]?.message ?? 'invalid'}`);
    await probeTemporal(deps.client);
    const runId = (await getConversation(deps.client, params.data.id))?.activeTurn?.runId;
    if (runId === undefined) return reply.code(204).send();
    return streamTurn(streamDeps, reply, { contextId: params.data.id, runId });
  });
}

/** A turn's agent: `POST /chat`'s fields, and `approval_tools` as the run's approval. */
function uiTurnSettings(body: UiChatBody, defaults: AgentDefaults): TurnSettings {
  const settings = turnSettings(body, defaults);
  return body.approval_tools === undefined ? settings : { ...settings, approval: { tools: body.approval_tools } };
}

/**
 * Decides each answered approval as the request's principal, once every answer is bound to a call this chat's
 * turn waits on (and signed, when signatures are on); a call decided already is refused by its run (409).
 */
async function decideAnswers(
  deps: UiChatRouteDeps,
  request: FastifyRequest,
  contextId: string,
  answers: readonly ApprovalAnswer[],
): Promise<{ runId: string; callIds: string[] }> {
  const activeRunId = (await getConversation(deps.client, contextId))?.activeTurn?.runId;
  const bound: Array<{ answer: ApprovalAnswer; call: BoundCall }> = answers.map((answer) => {
    const binding = bindingProblem(answer.approvalId, { contextId, activeRunId });
    const refuse = (problem: string) =>
      new ApiError('approval_not_bound', `The answer to tool call "${answer.toolCallId}" is refused: ${problem}.`);
    if ('problem' in binding) throw refuse(binding.problem);
    if (binding.call.callId !== answer.toolCallId) throw refuse('the approval id names another call');
    const secret = deps.approvalSecret;
    if (
      secret !== undefined &&
      (answer.signature === undefined ||
        !verifyApprovalSignature(secret, answer.signature, {
          approvalId: answer.approvalId,
          toolCallId: answer.toolCallId,
          toolName: answer.toolName,
          input: answer.input,
        }))
    )
      throw refuse('its signature is missing or does not verify');
    return { answer, call: binding.call };
  });
  const by =
    request.principal === undefined ? { via: 'api' as const } : { name: request.principal.name, via: 'api' as const };
  for (const { answer, call } of bound) {
    await decideToolCall(deps.client, call.runId, {
      callId: call.callId,
      decision: answer.approved ? 'approve' : 'deny',
      ...(!answer.approved && answer.reason !== undefined ? { reason: answer.reason } : {}),
      by,
    });
  }
  return { runId: activeRunId as string, callIds: bound.map(({ call }) => call.callId) };
}

/** An answered approval is a decision: the principal needs `approvals:decide` besides `runs:write`. */
function requireDecideScope(request: FastifyRequest): void {
  const principal = request.principal;
  if (principal !== undefined && !allows(principal.scopes, UI_CHAT_DECIDE_SCOPE))
    throw new ApiError(
      'forbidden',
      `POST /ui/chat with an answered approval decides a tool call: it needs the scope "${UI_CHAT_DECIDE_SCOPE}" besides "runs:write"; principal "${principal.name}" lacks it.`,
    );
}
