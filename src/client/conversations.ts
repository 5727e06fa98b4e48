import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
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
import { chatUpdate, conversationQuery, endConversationSignal } from '../common/conversation-definitions';
import { isWorkflowNotFound } from '../temporal/errors';
import { failureOf } from '../temporal/failure-of';

/**
 * Conversations by `context_id`, for backend services: each request is one
 * turn, run on the context's conversation workflow (started on first use).
 */

/** The turn was refused or its run failed; `type` is stable (`ConversationBusy`, `MaxInvocationsExceeded`, ...). */
export class ChatTurnFailedError extends Error {
  override readonly name = 'ChatTurnFailedError';

  constructor(
    message: string,
    readonly type: string,
    /** The agent run of the turn, when one was started. */
    readonly runId: string | undefined,
    readonly problems: string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

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
    const start = new WithStartWorkflowOperation(CONVERSATION_WORKFLOW_TYPE, {
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
    return await client.workflow.executeUpdateWithStart(chatUpdate, {
      args: [request],
      updateId,
      startWorkflowOperation: start,
    });
  } catch (error) {
    // No conversation, or one that has ended: either way there is nothing to continue.
    if (isWorkflowNotFound(error)) {
      throw new ChatTurnFailedError(
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
      throw new ChatTurnFailedError(failure.message, failure.type, detail.runId, detail.problems ?? [], {
        cause: error,
      });
    }
    throw error;
  }
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
