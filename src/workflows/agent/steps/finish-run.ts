import * as wf from '@temporalio/workflow';
import { SCHEMA_VERSION, type AgentResult, type ParsedAgentInput, type TerminationReason } from '../../../shared';
import { resultTooLarge } from '../failures';
import { toGeneratedMessages } from '../../rules/generated-messages';
import type { RunContext } from '../run-context';
import { describeActivity, type RunRecord } from '../run-record';
import { oversizedResult } from '../../rules/size-rules';

/**
 * Ends the run with `reason` (a failure goes through `RunContext.fail`
 * instead): records and publishes the ending, lets handlers finish, and
 * returns the run's result with `response` as its answer.
 */
export async function finishRun(context: RunContext, reason: TerminationReason, response: string): Promise<AgentResult> {
  const { run, publish } = context;
  const result: AgentResult = {
    schemaVersion: SCHEMA_VERSION,
    response,
    terminationReason: reason,
    iterations: run.iteration,
    invocations: run.invocations,
    consecutiveNudges: run.consecutiveNudges,
    restrictionInjections: run.restrictionInjections,
    usage: run.usage,
    messages: run.messages,
    generatedMessages: toGeneratedMessages(run.messages.slice(run.inputMessageCount)),
  };
  // Temporal would terminate a workflow whose result is over its limit; fail with the reason instead.
  const oversized = context.guarded ? oversizedResult(result) : undefined;
  if (oversized !== undefined) context.fail(resultTooLarge(oversized, reason, response, context.partial()));
  run.status = reason.type === 'external' ? 'terminated' : 'completed';
  run.terminationReason = reason;
  run.events.append('run-end', { status: run.status, terminationReason: reason });
  describeActivity(run, `${run.status} (${reason.type}) after ${run.iteration} iteration(s)`);
  publish(run);
  // Handlers are synchronous, so this never waits; it keeps the rule that none is cut off.
  await wf.CancellationScope.nonCancellable(() => wf.condition(wf.allHandlersFinished));
  return result;
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

/** The text of the last assistant message that has some: the response of a run stopped before it answered. */
export function lastAssistantText(run: RunRecord): string {
  const last = [...run.messages].reverse().find((message) => message.role === 'assistant' && message.content);
  return last?.role === 'assistant' ? (last.content ?? '') : '';
}
