import { RESULT_CACHE_DEFAULTS } from '../../../shared/defaults/context-control';
import { type ToolCall } from '../../../shared/messages';
import { type ToolCallResult } from '../../../shared/activity-types';
import { appendToolCallEnd, appendToolCallStart } from '../tool-call-events';
import { readResultCache } from '../../rules/result-cache';
import type { RunContext } from '../run-context';

/** Whether `call` is one of the built-in `result_cache`, which the run offers when it caches results. */
export function isResultCacheCall({ input }: RunContext, call: ToolCall): boolean {
  return input.resultProcessing?.inlineThreshold !== undefined && call.function.name === RESULT_CACHE_DEFAULTS.toolName;
}

/**
 * Answers a `result_cache` call in the workflow, from the run's result cache:
 * a pure read of the run's own state, so no activity, no approval, and
 * nothing for the result pipeline (a slice is short, and caching it again
 * would hand the model a reference to a reference). Logged like any call.
 */
export function answerResultCacheCall(context: RunContext, call: ToolCall): ToolCallResult {
  const { run } = context;
  appendToolCallStart(run, call, call.function.arguments);
  const reading = readResultCache(run.resultCache, call.function.arguments);
  const result: ToolCallResult = { content: reading.content, isError: reading.isError, terminate: false };
  appendToolCallEnd(run, call, 0, result);
  return result;
}
