import { sideCallSampling } from '../../../shared/sampling';
import { priceRequirement } from '../../rules/cost-budget';
import * as wf from '@temporalio/workflow';
import { type ToolCall } from '../../../shared/messages';
import { type ResultProcessingConfig } from '../../../shared/loop-guard-schemas';
import { type ToolCallResult } from '../../../shared/activity-types';
import { modelActivities } from '../activities';
import { modelCallFailed } from '../failures';
import { estimateTokens } from '../../rules/observation-masking';
import { cacheResult, cacheSummary, cachingDue } from '../../rules/result-cache';
import { extractionDue, extractionInput, unusableExtraction } from '../../rules/result-extraction';
import { processToolResult as truncateToolResult } from '../../rules/result-processing';
import { heartbeatOptions, type RunContext } from '../run-context';
import { describeActivity } from '../run-record';
import { addRunUsage } from '../run-transitions';

/**
 * The result pipeline between a tool and the conversation: processor, extractor, cacher, each optional; only successful
 * results are extracted or cached. A result that needs no extractor and waits on no `earlierCalls` comes back as it is,
 * so such a run issues no new command; otherwise `interim` (what a stopped run keeps) and `final`.
 */
export function processToolResult(
  context: RunContext,
  call: ToolCall,
  result: ToolCallResult,
  earlierCalls?: Promise<void>,
): ToolCallResult | PendingToolResult {
  const config = context.input.resultProcessing;
  if (config === undefined) return result;
  const processed = truncate(context, call, result, config);
  if (processed.isError || processed.waitForInput !== undefined) return processed;
  // With `earlierCalls`, a result is cached only once the calls before it in its batch are: `cache-N` follows the
  // calls' order, not the order parallel calls happen to complete in.
  if (!extractionDue(processed.content, config)) {
    if (earlierCalls === undefined || !cachingDue(processed.content, config.inlineThreshold))
      return cache(context, call, processed, config);
    return { interim: processed, final: earlierCalls.then(() => cache(context, call, processed, config)) };
  }
  const final = extract(context, call, processed, config).then((extracted) =>
    earlierCalls === undefined
      ? cache(context, call, extracted, config)
      : earlierCalls.then(() => cache(context, call, extracted, config)),
  );
  return { interim: processed, final };
}

/** A result whose extraction is under way. */
export interface PendingToolResult {
  /** The result as the processor left it. */
  interim: ToolCallResult;
  /** The result at the end of the pipeline. */
  final: Promise<ToolCallResult>;
}

/** Whether {@link processToolResult} handed back a result still in the extractor. */
export function isPending(result: ToolCallResult | PendingToolResult): result is PendingToolResult {
  return 'final' in result;
}

/** The processor: a result longer than its tool's limit is cut, with a marker and an event. */
function truncate(
  context: RunContext,
  call: ToolCall,
  result: ToolCallResult,
  config: ResultProcessingConfig,
): ToolCallResult {
  const processed = truncateToolResult(call.function.name, result.content, config);
  if (processed.truncated === undefined) return result;
  context.run.events.append('tool-result-truncation', {
    callId: call.id,
    toolName: call.function.name,
    ...processed.truncated,
  });
  return { ...result, content: processed.content };
}

/**
 * The extractor: `extractToolResult` condenses the result, its tokens in the run's usage; a failure, or an answer empty
 * or no shorter, leaves the result as it was, with an event.
 */
async function extract(
  context: RunContext,
  call: ToolCall,
  result: ToolCallResult,
  config: ResultProcessingConfig,
): Promise<ToolCallResult> {
  const { run, input, publish } = context;
  const toolName = call.function.name;
  const iteration = run.iteration;
  describeActivity(run, `iteration ${iteration}: condensing the result of ${toolName}`);
  const request = {
    ...extractionInput(toolName, result.content, run.messages, config, input.model),
    // Under a cost budget an unpriced model is not called (`ModelCall.PriceUnknown`): the result stays as it was.
    ...priceRequirement(input),
    ...sideCallSampling(input),
  };
  let extracted;
  try {
    extracted = await modelActivities.extractToolResult.executeWithOptions(
      { summary: `extraction · ${toolName} · iteration ${iteration}`, ...heartbeatOptions(context) },
      [request],
    );
  } catch (error) {
    if (wf.isCancellation(error)) throw error;
    const failure = modelCallFailed(error, context.partial());
    run.events.append('tool-result-extraction-failure', {
      iteration,
      callId: call.id,
      toolName,
      reason: `the extraction call failed: ${failure.message}`.slice(0, 1_000),
      ...(typeof failure.type === 'string' ? { errorType: failure.type } : {}),
    });
    return result;
  }
  addRunUsage(run, extracted.usage);
  publish(run);
  const unusable = unusableExtraction(result.content, extracted);
  if (unusable !== undefined) {
    run.events.append('tool-result-extraction-failure', { iteration, callId: call.id, toolName, reason: unusable });
    return result;
  }
  run.events.append('tool-result-extraction', {
    iteration,
    callId: call.id,
    toolName,
    originalChars: result.content.length,
    extractedChars: extracted.content.length,
    originalTokens: estimateTokens(result.content),
    extractedTokens: estimateTokens(extracted.content),
    cut: extracted.cut,
    usage: extracted.usage,
    model: extracted.model,
  });
  return { ...result, content: extracted.content };
}

/** The cacher: a result longer than `inlineThreshold` goes into the run's result cache, its summary into the conversation. */
function cache(
  context: RunContext,
  call: ToolCall,
  result: ToolCallResult,
  config: ResultProcessingConfig,
): ToolCallResult {
  const threshold = config.inlineThreshold;
  if (!cachingDue(result.content, threshold)) return result;
  const { run } = context;
  const cached = cacheResult(run.resultCache, {
    toolName: call.function.name,
    callId: call.id,
    iteration: run.iteration,
    content: result.content,
  });
  run.resultCache = cached.cache;
  const summary = cacheSummary(cached.entry, threshold);
  run.events.append('tool-result-caching', {
    iteration: run.iteration,
    callId: call.id,
    toolName: call.function.name,
    ref: cached.entry.ref,
    originalChars: result.content.length,
    originalTokens: estimateTokens(result.content),
    summaryTokens: estimateTokens(summary),
    dropped: cached.dropped,
  });
  return { ...result, content: summary };
}
