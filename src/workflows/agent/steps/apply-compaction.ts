import { sideCallSampling } from '../../../shared/sampling';
import { priceRequirement } from '../../rules/cost-budget';
import * as wf from '@temporalio/workflow';
import { type CompactionConfig } from '../../../shared/compaction-schema';
import { type CompactionResult } from '../../../shared/activity-types';
import { maxSummaryChars, planCompaction, type CompactionPlan } from '../../rules/compaction-rule';
import { contextTokens } from '../../rules/model-context';
import { modelActivities } from '../activities';
import { compactionFailed } from '../failures';
import { heartbeatOptions, type RunContext } from '../run-context';
import { describeActivity } from '../run-record';
import type { RunEnding } from '../step-outcome';
import { transcriptIndexOf } from '../../rules/transcript-segment';
import { modelContextOf } from './call-model';
import { addRunUsage } from '../run-transitions';

/**
 * Compaction before the model call: past `compaction.maxTokens`, `compactConversation` summarises the older messages
 * into `run.compaction`. A run without `compaction` never schedules it (no `wf.patched` needed); a failure ends the run
 * with `CompactionFailed` rather than exceed the caller's limit.
 */
export function applyCompaction(context: RunContext): Promise<RunEnding | undefined> | undefined {
  const { run, input } = context;
  const config = input.compaction;
  if (config === undefined) return undefined;
  const subject = {
    messages: run.messages,
    inputMessageCount: run.inputMessageCount,
    iteration: run.iteration,
    previous: run.compaction,
    instructions: input.instructions,
  };
  const plan = planCompaction(subject, modelContextOf(context), config);
  if (plan.kind === 'none') return undefined;
  return compact(context, config, plan);
}

/** Runs the compaction activity on `plan` and records its summary; the run's ending when it failed. */
async function compact(
  context: RunContext,
  config: CompactionConfig,
  plan: Extract<CompactionPlan, { kind: 'compact' }>,
): Promise<RunEnding | undefined> {
  const { run, input } = context;
  describeActivity(run, `iteration ${run.iteration}: compacting the conversation`);
  let result: CompactionResult;
  try {
    result = await modelActivities.compactConversation.executeWithOptions(
      { summary: `compaction · iteration ${run.iteration}`, ...heartbeatOptions(context) },
      [
        {
          model: config.model ?? input.model,
          instructions: config.instructions,
          messages: plan.summarise,
          maxSummaryChars: maxSummaryChars(config.maxTokens),
          ...priceRequirement(input),
          ...sideCallSampling(input),
        },
      ],
    );
  } catch (error) {
    if (wf.isCancellation(error)) throw error;
    return { kind: 'fail', failure: compactionFailed(error, context.partial()) };
  }
  return recordCompaction(context, plan, result);
}

/** The summary in the run's record, its tokens in the run's usage, and a `compaction` event. */
function recordCompaction(
  context: RunContext,
  plan: Extract<CompactionPlan, { kind: 'compact' }>,
  result: CompactionResult,
): RunEnding | undefined {
  const { run, input, publish } = context;
  addRunUsage(run, result.usage);
  publish(run);
  if (result.summary === '') return { kind: 'fail', failure: compactionFailed(undefined, context.partial()) };
  run.compaction = {
    throughIndex: plan.throughIndex,
    summary: result.summary,
    iteration: run.iteration,
    count: (run.compaction?.count ?? 0) + 1,
  };
  run.events.append('compaction', {
    iteration: run.iteration,
    // In the whole transcript, also after a continue-as-new left earlier messages behind.
    throughIndex: transcriptIndexOf(plan.throughIndex, run.segment),
    messagesSummarised: plan.newlySummarised,
    tokensBefore: plan.tokensBefore,
    tokensAfter: contextTokens(modelContextOf(context).messages, input.instructions),
    summaryCut: result.cut,
    usage: result.usage,
    model: result.model,
  });
  describeActivity(run, `iteration ${run.iteration}: calling the model`);
  return undefined;
}
