import type { AssistantMessage, ToolCall } from '../../../shared/messages';
import type { ToolCallResult } from '../../../shared/activity-types';
import type { RunContext } from '../run-context';
import type { StepOutcome } from '../step-outcome';
import { type RunRecord } from '../run-record';
import type { RunTools } from '../../rules/run-setup';
import { executeToolCall } from './execute-tool-call';
import { truncatedToolCallMessage } from '../../../shared/defaults/model-settings';
import { isPending, processToolResult } from './process-tool-result';
import { answerResultCacheCall, isResultCacheCall } from './read-result-cache';
import { answerNotAlone, isAnswerToolCall } from './take-output-answer';
import { keepToolCalls, planToolBatch } from '../../rules/tool-batch';
import { toolMessagesFor } from '../../rules/transcript';
import { abandonPendingApprovals, appendMessages, replaceMessage } from '../run-transitions';

/** How one batch of tool calls ended the run, if it did: a terminating tool or `TerminateResponse`. */
type BatchEnding = Extract<StepOutcome, { kind: 'finish' }> | undefined;

/** How a batch ended: the ending it decided, if any, and the calls it executed. */
export interface ToolBatchResult {
  ending: BatchEnding;
  executed: ExecutedCall[];
}

/** A call that was executed, with its result (after result processing). */
export interface ExecutedCall {
  call: ToolCall;
  result: ToolCallResult;
}

/** Executes one response's tool calls under the ordering rules of terminating tools (`rules/tool-batch.ts`) and appends their results. */
export async function runToolBatch(
  context: RunContext,
  tools: RunTools,
  assistant: AssistantMessage,
  calls: ToolCall[],
  flagged: ReadonlySet<string>,
  cut: ReadonlySet<string> = new Set(),
): Promise<ToolBatchResult> {
  const { run, input } = context;
  const plan = planToolBatch(calls, tools.terminating);
  const planned = plan.terminating === undefined ? plan.leading : [...plan.leading, plan.terminating];
  const assistantIndex = run.messages.lastIndexOf(assistant);
  if (planned.length < calls.length) replaceMessage(run, assistantIndex, keepToolCalls(assistant, planned));
  const batch = { assistantIndex, calls: planned, results: new Map<string, ToolCallResult>() };
  run.openBatch = batch;

  // Parallel calls complete in any order; the cacher takes each result once the calls before it are done, so a
  // run's `cache-N` numbering is its input's alone, not its tools' timing.
  const inCallOrder =
    input.parallelToolCalls && plan.leading.length > 1 && input.resultProcessing?.inlineThreshold !== undefined;
  let earlierCalls: Promise<void> = Promise.resolve();
  const execute = async (call: ToolCall): Promise<ToolCallResult> => {
    const before = earlierCalls;
    let done = () => {};
    earlierCalls = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      // Arguments the token cap cut: the tool does not run, and the model hears why.
      if (cut.has(call.id)) {
        const answer = { content: truncatedToolCallMessage(call.function.name), isError: true, terminate: false };
        batch.results.set(call.id, answer);
        return answer;
      }
      if (isResultCacheCall(context, call)) {
        const answer = answerResultCacheCall(context, call);
        batch.results.set(call.id, answer);
        return answer;
      }
      if (isAnswerToolCall(context, call)) {
        const answer = answerNotAlone(context);
        batch.results.set(call.id, answer);
        return answer;
      }
      const raw = await executeToolCall(context, call, tools.descriptions, flagged);
      // A result that ends the run is the response: it is never processed.
      const processing =
        raw.terminate || call === plan.terminating
          ? raw
          : processToolResult(context, call, raw, inCallOrder ? before : undefined);
      if (!isPending(processing)) {
        batch.results.set(call.id, processing);
        return processing;
      }
      // Awaited only when the extractor runs or the result waits on earlier calls' caching, so the commands stay
      // the same otherwise; a run stopped meanwhile keeps the processor's result, not a "cancelled".
      batch.results.set(call.id, processing.interim);
      const result = await processing.final;
      batch.results.set(call.id, result);
      return result;
    } finally {
      // Done once this call and every one before it are: a call whose result is not cached does not wait, yet the
      // next call still waits for the ones before this.
      void before.then(done);
    }
  };

  let stoppedEarly = false;
  if (input.parallelToolCalls) {
    await Promise.all(plan.leading.map(execute));
  } else {
    for (const call of plan.leading) {
      if ((await execute(call)).terminate) {
        stoppedEarly = true;
        break;
      }
    }
  }

  let ending: BatchEnding;
  const terminated = plan.leading.find((call) => batch.results.get(call.id)?.terminate);
  if (terminated !== undefined) {
    ending = {
      kind: 'finish',
      reason: { type: 'terminate_response', toolName: terminated.function.name, callId: terminated.id },
      response: batch.results.get(terminated.id)?.content ?? '',
    };
  } else if (plan.terminating !== undefined) {
    const call = plan.terminating;
    const result = await execute(call);
    // A terminating tool that errored (bad arguments, a throw, a denial) does not end
    // the run: the error goes back to the model so it can call the tool correctly.
    if (!result.isError) {
      ending = {
        kind: 'finish',
        reason: { type: 'terminating_tool', toolName: call.function.name, callId: call.id },
        response: result.content,
      };
    }
  }

  const executed =
    stoppedEarly || terminated !== undefined ? planned.filter((call) => batch.results.has(call.id)) : planned;
  if (executed.length < planned.length) {
    replaceMessage(run, assistantIndex, keepToolCalls(run.messages[assistantIndex] as AssistantMessage, executed));
  }
  batch.calls = executed;
  closeOpenBatch(run);
  return {
    ending,
    executed: executed.flatMap((call) => {
      const result = batch.results.get(call.id);
      return result === undefined ? [] : [{ call, result }];
    }),
  };
}

/** Appends the open batch's tool messages (a synthetic "cancelled" one for each call without a result). */
export function closeOpenBatch(run: RunRecord): void {
  const batch = run.openBatch;
  if (batch === undefined) return;
  run.openBatch = undefined;
  appendMessages(run, ...toolMessagesFor(batch.calls, batch.results, run.iteration));
  for (const approval of abandonPendingApprovals(run)) {
    run.events.append('approval-abandonment', { callId: approval.callId, toolName: approval.toolName });
  }
}
