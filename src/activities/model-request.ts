import { ApplicationFailure, type Context } from '@temporalio/activity';
import { modelRequestQuery } from '../workflow-contract/definitions';
import { FailureType } from '../shared/failure-catalogue';
import { type ChatMessage } from '../shared/messages';
import { type ModelCallInput } from '../shared/activity-types';
import { ModelRequestCache, modelRequestKey } from './model-request-cache';

/**
 * The conversation a model call sends: from its input, from this worker's in-memory hand-over (`cache`) on the first
 * attempt, or else from the workflow's `modelRequest` query, a page at a time. The workflow prepared it from its
 * history alone, so every attempt reads the same messages without writing them to history again; a failed read is
 * retryable (the workflow's worker may be restarting).
 */
export async function requestMessages(
  context: Context,
  input: ModelCallInput,
  cache = ModelRequestCache.forProcess(),
): Promise<ChatMessage[]> {
  if (input.messages !== undefined) return input.messages;
  const reference = input.conversation;
  if (reference === undefined) {
    throw ApplicationFailure.nonRetryable(
      'The model call has neither `messages` nor a `conversation` to read.',
      FailureType.invalidModelCallInput,
    );
  }
  const execution = context.info.workflowExecution;
  if (execution === undefined) {
    throw ApplicationFailure.nonRetryable(
      'The model call refers to its workflow for its conversation, but runs outside of one.',
      FailureType.invalidModelCallInput,
    );
  }
  const { workflowId, runId } = execution;
  const handedOver = cache.take(modelRequestKey(workflowId, runId, reference.iteration), reference.count);
  if (handedOver !== undefined) return handedOver;
  const handle = context.client.workflow.getHandle(workflowId, runId);
  const messages: ChatMessage[] = [];
  while (messages.length < reference.count) {
    let page;
    try {
      page = await handle.query(modelRequestQuery, { iteration: reference.iteration, from: messages.length });
    } catch (error) {
      throw ApplicationFailure.retryable(
        `Could not read the conversation of iteration ${reference.iteration} from workflow ${workflowId}: ${error instanceof Error ? error.message : String(error)}`,
        FailureType.modelRequestUnavailable,
      );
    }
    if (page.total !== reference.count || page.from !== messages.length || page.messages.length === 0) {
      throw ApplicationFailure.retryable(
        `The workflow answered ${page.messages.length} message(s) from ${page.from} of ${page.total} for iteration ${reference.iteration}; the call expects ${reference.count} from ${messages.length}.`,
        FailureType.modelRequestUnavailable,
      );
    }
    messages.push(...page.messages);
  }
  return messages;
}
