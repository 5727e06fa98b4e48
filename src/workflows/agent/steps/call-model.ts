import { priceRequirement } from '../../rules/cost-budget';
import * as wf from '@temporalio/workflow';
import { MODEL_INPUT_INLINE_BYTES } from '../../../shared/defaults/sizes';
import { type AssistantMessage, type ChatMessage } from '../../../shared/messages';
import { jsonBytes } from '../../../shared/payload-limits';
import { type ModelCallResult } from '../../../shared/activity-types';
import { modelActivities, modelRequestSinks } from '../activities';
import { messagesForModel, withRunnerCallIds } from '../../rules/call-identity';
import { preview } from '../event-log';
import { modelContext, type ModelContext } from '../../rules/model-context';
import { RESULT_CACHE_TOOL } from '../../rules/result-cache';
import { heartbeatOptions, type RunContext } from '../run-context';
import { workflowTools } from './context-release';
import { addRunUsage, appendMessages } from '../run-transitions';
import { answerFormat, answerTools } from '../../rules/output-request';
import { LENGTH_FINISH_REASON } from '../../rules/answer-truncation';

/**
 * What the model would see if called now (`rules/model-context.ts`); `run.messages` keeps everything whole.
 */
export function modelContextOf({ run, input }: RunContext): ModelContext {
  // Results of the last `keepIterations` iterations that produced them stay: the newest is the previous one.
  const masking =
    input.masking === undefined
      ? undefined
      : { config: input.masking, currentIteration: run.iteration - 1, released: run.releasedIterations };
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
  const sent = messagesForModel(messages);
  // A large conversation stays out of the input, which history records at every call: the activity
  // reads it from this run with the `modelRequest` query, which history does not record.
  const bytes = jsonBytes(sent);
  const byReference = bytes > MODEL_INPUT_INLINE_BYTES;
  run.modelRequest = byReference ? { iteration: run.iteration, messages: sent } : undefined;
  // The worker that runs the call next can take it from memory and skip the query. Not on replay:
  // the call was made long ago, and copying every conversation again would only cost the replay.
  if (byReference && !wf.workflowInfo().unsafe.isReplaying)
    modelRequestSinks.agentRunnerModelRequests.offer(run.iteration, sent, bytes);
  // Tools the workflow answers itself: `result_cache` while the run caches results, `context_release` while it masks.
  const offered = [
    ...(input.resultProcessing?.inlineThreshold === undefined ? [] : [RESULT_CACHE_TOOL]),
    ...workflowTools(context).map(({ name, description, parameters }) => ({ name, description, parameters })),
    ...answerTools(input),
  ];
  const responseFormat = answerFormat(input);
  const streamKey = context.worker?.streamKey;
  return modelActivities.callModel.executeWithOptions(
    { summary: `model call · iteration ${run.iteration}`, ...heartbeatOptions(context) },
    [
      {
        model: input.model,
        // Absent unless the run names fallbacks, so the input of a run without them stays as it was.
        ...(input.modelFallbacks === undefined ? {} : { fallbacks: input.modelFallbacks }),
        iteration: run.iteration,
        instructions: input.instructions,
        ...(byReference ? { conversation: { iteration: run.iteration, count: sent.length } } : { messages: sent }),
        toolNames: input.tools,
        parallelToolCalls: input.parallelToolCalls,
        ...priceRequirement(input),
        // Absent unless offered, so the input of a run without them stays as it was.
        ...(offered.length === 0 ? {} : { workflowTools: offered }),
        ...(responseFormat === undefined ? {} : { responseFormat }),
        ...(input.modelSettings === undefined ? {} : { sampling: input.modelSettings }),
        ...(streamKey === undefined ? {} : { streamKey }),
      },
    ],
  );
}

/** Counts the model call and its tokens, adds its message to the conversation, and logs and publishes it. */
export function recordModelResponse(context: RunContext, response: ModelCallResult): AssistantMessage {
  const { run, publish } = context;
  run.modelRequest = undefined;
  run.invocations += 1;
  addRunUsage(run, response.usage);
  // Before anything else sees the calls: from here on the run knows them by runner ids only.
  const message = withRunnerCallIds(response.message, run.iteration);
  const assistant: AssistantMessage = { ...message, meta: { ...message.meta, iteration: run.iteration } };
  appendMessages(run, assistant);
  run.events.append('model-response', {
    iteration: run.iteration,
    toolCalls: (assistant.tool_calls ?? []).map((call) => call.function.name),
    ...(assistant.content ? { content: preview(assistant.content) } : {}),
    usage: response.usage,
    // Optional: older workers' results lack it.
    ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
    ...(response.finishReason === LENGTH_FINISH_REASON ? { truncated: true as const } : {}),
    // Optional: older workers' results lack it.
    ...(response.endpoint === undefined ? {} : { endpoint: response.endpoint }),
    ...(response.fallbacks === undefined
      ? {}
      : { fallbacks: response.fallbacks.map(({ endpoint, model, type }) => ({ endpoint, model, type })) }),
  });
  publish(run);
  return assistant;
}
