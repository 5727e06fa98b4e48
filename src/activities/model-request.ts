import { ApplicationFailure, type Context } from '@temporalio/activity';
import { modelRequestQuery } from '../workflow-contract/definitions';
import { FailureType } from '../shared/failure-catalogue';
import { type ChatMessage } from '../shared/messages';
import { type ModelCallInput } from '../shared/activity-types';
import { ModelRequestCache, modelRequestKey } from './model-request-cache';

/**
 * The conversation a model call sends: from its input when it travelled
 * there, otherwise read from the activity's own workflow run with the
 * `modelRequest` query, a page at a time. The workflow prepared it before
 * scheduling the call, from its history alone, so every attempt — on
 * another worker, after a restart — reads the same messages; queries are not
 * recorded, so the conversation is not written to history again.
 * A read that fails is retryable: the workflow's worker may be restarting.
 * When this worker's workflow handed the messages over in memory (`cache`,
 * filled by the `ModelRequestSinks` sink), the first attempt takes them from
 * there and asks nothing.
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
