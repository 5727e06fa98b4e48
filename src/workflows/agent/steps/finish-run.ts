import * as wf from '@temporalio/workflow';
import { RESULT_MESSAGES_INLINE_BYTES } from '../../../shared/defaults/sizes';
import { SCHEMA_VERSION } from '../../../shared/defaults/names';
import { jsonBytes, utf8Bytes } from '../../../shared/payload-limits';
import { type AgentResult, type TerminationReason } from '../../../shared/agent-result';
import { type AgentWorkflowResult, withAnswerOnce } from '../../../shared/result-answer';
import { type ParsedAgentInput } from '../../../shared/agent-input';
import { newestThatFit } from '../../rules/message-pages';
import { transcriptIndexOf, transcriptTotal } from '../../rules/transcript-segment';
import { toGeneratedMessages } from '../../rules/generated-messages';
import { oversizedResult } from '../../rules/size-rules';
import { toolMessagesFor } from '../../rules/transcript';
import { resultTooLarge } from '../failures';
import type { RunContext } from '../run-context';
import { describeActivity, type RunRecord, runUsage } from '../run-record';
import { closedRunRecord } from '../closed-run-record';
import type { StepOutcome } from '../step-outcome';
import { appendMessages, markFinished } from '../run-transitions';

/** The result of a call not executed because the run stopped before it (loop detection, `stopWhen`). */
const NOT_EXECUTED_RESULT = 'Not executed: the run stopped before this call ran.';

/**
 * The run's result for a `finish` outcome: the calls it stops before get
 * their "not executed" results, and the result is built. A result Temporal
 * would refuse as too large is a failure instead, handed back for the loop
 * to settle. Synchronous: nothing runs between the decision and this.
 */
export function runResult(
  context: RunContext,
  outcome: Extract<StepOutcome, { kind: 'finish' }>,
): { kind: 'finished'; result: AgentWorkflowResult } | Extract<StepOutcome, { kind: 'fail' }> {
  const { run } = context;
  const { reason, response } = outcome;
  if (outcome.unexecuted !== undefined)
    appendMessages(run, ...toolMessagesFor(outcome.unexecuted, new Map(), run.iteration, NOT_EXECUTED_RESULT));
  const from = resultMessagesFrom(context);
  const full: AgentResult = {
    schemaVersion: SCHEMA_VERSION,
    response,
    ...(outcome.output === undefined ? {} : { output: outcome.output.value }),
    ...(context.input.output === undefined ? {} : { outputCorrections: run.outputCorrections ?? 0 }),
    ...(outcome.truncated === true ? { truncated: true as const } : {}),
    terminationReason: reason,
    iterations: run.iteration,
    invocations: run.invocations,
    consecutiveNudges: run.consecutiveNudges,
    restrictionInjections: run.restrictionInjections,
    usage: runUsage(run),
    ...nestedFields(run),
    messages: from === undefined ? run.messages : run.messages.slice(from),
    generatedMessages: toGeneratedMessages(run.messages.slice(Math.max(run.inputMessageCount, from ?? 0))),
    ...(from === undefined
      ? {}
      : {
          transcript: { total: transcriptTotal(run.messages, run.segment), from: transcriptIndexOf(from, run.segment) },
        }),
    ...(context.input.forkedFrom === undefined ? {} : { forkedFrom: context.input.forkedFrom }),
  };
  // An answer larger than the messages a result carries inline is carried once: the result weighs it once, not three times.
  const result = utf8Bytes(response) > RESULT_MESSAGES_INLINE_BYTES ? withAnswerOnce(full) : full;
  // Temporal would terminate a workflow whose result is over its limit; fail with the reason instead.
  const oversized = oversizedResult(result);
  if (oversized !== undefined)
    return { kind: 'fail', failure: resultTooLarge(oversized, reason, response, context.partial()) };
  return { kind: 'finished', result };
}

/** The result's account of nested agents, once the run started one: its own usage and each child's. */
function nestedFields(run: RunRecord): Pick<AgentResult, 'ownUsage' | 'children' | 'childrenOmitted'> {
  const nested = run.nested;
  if (nested === undefined) return {};
  return {
    ownUsage: run.usage,
    children: nested.children,
    ...(nested.omitted === 0 ? {} : { childrenOmitted: nested.omitted }),
  };
}

/**
 * Where the result's messages start: undefined (the whole conversation) unless the
 * run asked for `recent` messages and the conversation is too large to carry
 * again; then the newest that fit.
 */
function resultMessagesFrom(context: RunContext): number | undefined {
  const { run, input } = context;
  if (input.resultMessages === 'all') return undefined;
  // After a continue-as-new left messages behind, the result never starts among the kept copies of the caller's system messages.
  const pinned = run.segment?.pinned ?? 0;
  const own = pinned === 0 ? run.messages : run.messages.slice(pinned);
  if (run.segment === undefined && jsonBytes(own) <= RESULT_MESSAGES_INLINE_BYTES) return undefined;
  return pinned + newestThatFit(own, RESULT_MESSAGES_INLINE_BYTES);
}

/** Ends the run with `result`: records and publishes the ending, lets handlers finish, and returns it. */
export async function finishRun(context: RunContext, result: AgentWorkflowResult): Promise<AgentWorkflowResult> {
  const { run, publish } = context;
  const reason = result.terminationReason;
  const status = markFinished(run, reason);
  run.events.append('run-end', { status, terminationReason: reason, usage: runUsage(run) });
  describeActivity(run, `${status} (${reason.type}) after ${run.iteration} iteration(s)`);
  publish(run);
  // Handlers are synchronous, so this never waits; it keeps the rule that none is cut off.
  await wf.CancellationScope.nonCancellable(() => wf.condition(wf.allHandlersFinished));
  return { ...result, closedRun: closedRunRecord(run, result) };
}

/**
 * Why a cancelled loop ended: the run's own timeout, or a stop from outside —
 * the `terminate` signal (which recorded a stop request) or Temporal's cancel.
 */
export function cancellationReason(run: RunRecord, input: ParsedAgentInput): TerminationReason {
  return run.stopRequest?.kind === 'timeout'
    ? { type: 'timeout', limit: String(input.timeout) }
    : {
        type: 'external',
        via: run.stopRequest === undefined ? 'cancel' : 'signal',
        ...(run.stopRequest?.reason === undefined ? {} : { reason: run.stopRequest.reason }),
      };
}
