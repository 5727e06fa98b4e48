import {
  MODEL_INPUT_INLINE_BYTES,
  addUsage,
  jsonBytes,
  type AssistantMessage,
  type ChatMessage,
  type ModelCallResult,
} from '../../../shared';
import { modelActivities } from '../activities';
import { messagesForModel, withRunnerCallIds } from '../../rules/call-identity';
import { preview } from '../event-log';
import { modelContext, type ModelContext } from '../../rules/model-context';
import { RESULT_CACHE_TOOL } from '../../rules/result-cache';
import type { RunContext } from '../run-context';

/**
 * What the model would see if called now (`rules/model-context.ts`): the
 * transcript with the run's compaction summary in place of what it
 * summarised, and with observation masking, old and large tool results as
 * placeholders; `run.messages` keeps everything whole. No events: compaction
 * measures it too.
 */
export function modelContextOf({ run, input }: RunContext): ModelContext {
  // Results of the last `keepIterations` iterations that produced them stay: the newest is the previous one.
  const masking = input.masking === undefined ? undefined : { config: input.masking, currentIteration: run.iteration - 1 };
  return modelContext(run.messages, run.inputMessageCount, run.compaction, masking);
}

/** The conversation as the model sees it ({@link modelContextOf}), with what masking saved logged. */
export function contextForModel(context: RunContext): ChatMessage[] {
  const { run } = context;
  const { messages, masked } = modelContextOf(context);
  if (masked.length > 0) {
    run.events.append('observation-masking', {
      iteration: run.iteration,
      masked,
      tokensSaved: masked.reduce((sum, entry) => sum + entry.tokens, 0),
    });
  }
  return messages;
}

/**
 * Schedules this iteration's model call on `messages`. Not `async` on
 * purpose: it hands back the activity's own promise, so the loop awaits
 * exactly what it awaited when the call was inline and the workflow's
 * commands keep their order.
 */
export function callModel(context: RunContext, messages: ChatMessage[]): Promise<ModelCallResult> {
  const { run, input } = context;
  const sent = context.runnerCallIds ? messagesForModel(messages) : messages;
  // A large conversation stays out of the input, which history records at every call: the activity
  // reads it from this run with the `modelRequest` query, which history does not record.
  const byReference = context.linearHistory && jsonBytes(sent) > MODEL_INPUT_INLINE_BYTES;
  run.modelRequest = byReference ? { iteration: run.iteration, messages: sent } : undefined;
  return modelActivities.callModel.executeWithOptions({ summary: `model call · iteration ${run.iteration}` }, [
    {
      model: input.model,
      instructions: input.instructions,
      ...(byReference ? { conversation: { iteration: run.iteration, count: sent.length } } : { messages: sent }),
      toolNames: input.tools,
      // Only a run that caches results is offered `result_cache`: any other schedules its calls as before.
      ...(input.resultProcessing?.inlineThreshold === undefined ? {} : { workflowTools: [RESULT_CACHE_TOOL] }),
      parallelToolCalls: input.parallelToolCalls,
    },
  ]);
}

/** Counts the model call and its tokens, adds its message to the conversation, and logs and publishes it. */
export function recordModelResponse(context: RunContext, response: ModelCallResult): AssistantMessage {
  const { run, publish } = context;
  run.modelRequest = undefined;
  run.invocations += 1;
  run.usage = addUsage(run.usage, response.usage);
  // Before anything else sees the calls: from here on the run knows them by runner ids only.
  const message = context.runnerCallIds ? withRunnerCallIds(response.message, run.iteration) : response.message;
  const assistant: AssistantMessage = { ...message, meta: { ...message.meta, iteration: run.iteration } };
  run.messages.push(assistant);
  run.events.append('model-response', {
    iteration: run.iteration,
    toolCalls: (assistant.tool_calls ?? []).map((call) => call.function.name),
    text: assistant.content !== null && assistant.content !== '',
    ...(assistant.content ? { content: preview(assistant.content) } : {}),
    usage: response.usage,
  });
  publish(run);
  return assistant;
}
