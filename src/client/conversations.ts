import { randomUUID } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import {
  CONVERSATION_INPUT_VERSION,
  CONVERSATION_WORKFLOW_TYPE,
  ConversationFailure,
  conversationWorkflowId,
  type ChatTurnRequest,
  type ChatTurnResult,
  type ConversationInput,
  type ConversationState,
} from '../shared/conversation';
import { loadClientTaskQueue } from '../config/temporal';
import { chatUpdate, conversationQuery, endConversationSignal } from '../workflow-contract/conversation-definitions';
import { isWorkflowNotFound } from '../temporal/errors';
import { failureOf } from '../temporal/failure-of';
import { ChatTurnFailedError } from './chat-turn-failed-error';

/**
 * Conversations by `context_id`, for backend services: each request is one
 * turn, run on the context's conversation workflow (started on first use).
 */

/** Options of {@link sendChatTurn}. */
export interface ChatTurnOptions {
  /** @default `AGENT_TASK_QUEUE`, else 'agent-runner' */
  taskQueue?: string;
  /** Makes a retried request run the turn once: the same key answers the same turn. */
  idempotencyKey?: string;
}

/**
 * Runs one turn on the context's conversation and waits for its answer. The
 * conversation is started by the same call when it does not exist yet
 * (update-with-start), so two first requests cannot create two conversations.
 */
export async function sendChatTurn(
  client: Client,
  contextId: string,
  request: ChatTurnRequest,
  options: ChatTurnOptions = {},
): Promise<ChatTurnResult> {
  const updateId = options.idempotencyKey ?? randomUUID();
  try {
    if (continuesHistory(request)) {
      // Nothing to run on a conversation that does not exist: refuse without creating one.
      return await client.workflow
        .getHandle(conversationWorkflowId(contextId))
        .executeUpdate(chatUpdate, { args: [request], updateId });
    }
    return await client.workflow.executeUpdateWithStart(chatUpdate, {
      args: [request],
      updateId,
      startWorkflowOperation: conversationStart(contextId, options),
    });
  } catch (error) {
    throw turnFailure(error, contextId);
  }
}

/** A turn the conversation has taken on: its run, and its answer once it comes. */
export interface StartedChatTurn {
  runId: string;
  /** Waits for the turn's answer (a long poll of Temporal's, for as long as the turn lasts). */
  result: () => Promise<ChatTurnResult>;
}

/**
 * Starts a `chat` turn (update-with-start) and answers with its run once the conversation accepts it, without
 * waiting for the answer; a refused turn throws {@link ChatTurnFailedError} as {@link sendChatTurn} does.
 */
export async function startChatTurn(
  client: Client,
  contextId: string,
  request: ChatTurnRequest & { kind: 'chat' },
  options: ChatTurnOptions = {},
): Promise<StartedChatTurn> {
  // The turn in progress before this one: what the conversation shows after a refusal.
  const before = (await getConversation(client, contextId).catch(() => undefined))?.activeTurn?.runId;
  try {
    const handle = await client.workflow.startUpdateWithStart(chatUpdate, {
      args: [request],
      updateId: options.idempotencyKey ?? randomUUID(),
      waitForStage: WorkflowUpdateStage.ACCEPTED,
      startWorkflowOperation: conversationStart(contextId, options),
    });
    const active = (await getConversation(client, contextId))?.activeTurn?.runId;
    if (active !== undefined && active !== before) return { runId: active, result: () => awaitTurn(handle, contextId) };
    // Refused, or over already: its outcome says which.
    const result = await awaitTurn(handle, contextId);
    return { runId: result.runId, result: () => Promise.resolve(result) };
  } catch (error) {
    throw turnFailure(error, contextId);
  }
}

async function awaitTurn(handle: WorkflowUpdateHandle<ChatTurnResult>, contextId: string): Promise<ChatTurnResult> {
  try {
    return await handle.result();
  } catch (error) {
    throw turnFailure(error, contextId);
  }
}

/** How the conversation workflow of `contextId` is started by a turn that finds none. */
function conversationStart(contextId: string, options: ChatTurnOptions) {
  return new WithStartWorkflowOperation(CONVERSATION_WORKFLOW_TYPE, {
    workflowId: conversationWorkflowId(contextId),
    taskQueue: options.taskQueue ?? loadClientTaskQueue(),
    args: [
      {
        schemaVersion: CONVERSATION_INPUT_VERSION,
        contextId,
        generation: randomUUID().slice(0, 8),
      } satisfies ConversationInput,
    ],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/** A turn's failure as the caller sees it: a {@link ChatTurnFailedError} when the conversation said why. */
function turnFailure(error: unknown, contextId: string): unknown {
  if (ChatTurnFailedError.isInstance(error)) return error;
  // No conversation, or one that has ended: either way there is nothing to continue.
  if (isWorkflowNotFound(error)) {
    return new ChatTurnFailedError(
      `There is no conversation "${contextId}" to continue; start it with a human message (POST /chat).`,
      ConversationFailure.empty,
      undefined,
      [],
      { cause: error },
    );
  }
  const failure = error instanceof WorkflowUpdateFailedError ? failureOf(error) : undefined;
  if (failure?.kind === 'application') {
    const detail = (failure.details[0] ?? {}) as { runId?: string; problems?: string[] };
    return new ChatTurnFailedError(failure.message, failure.type, detail.runId, detail.problems ?? [], {
      cause: error,
    });
  }
  return error;
}

/** `invoke`, and `add-ai-message` without a prompt, only continue what is there. */
function continuesHistory(request: ChatTurnRequest): boolean {
  return request.kind === 'invoke' || (request.kind === 'add-ai-message' && !request.prompt);
}

/** The conversation's history and the turn in progress; undefined when the context has never been used. */
export async function getConversation(client: Client, contextId: string): Promise<ConversationState | undefined> {
  try {
    return await client.workflow.getHandle(conversationWorkflowId(contextId)).query(conversationQuery);
  } catch (error) {
    if (isWorkflowNotFound(error)) return undefined;
    throw error;
  }
}

/** Ends the conversation (after the turn in progress); false when there was none running. */
export async function endConversation(client: Client, contextId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(conversationWorkflowId(contextId)).signal(endConversationSignal);
    return true;
  } catch (error) {
    if (isWorkflowNotFound(error)) return false;
    throw error;
  }
}
