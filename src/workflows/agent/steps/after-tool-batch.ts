import { inject } from '../conversation-messages';
import { preview } from '../event-log';
import type { RunContext } from '../run-context';
import { runAgain, type StepOutcome } from '../step-outcome';
import { applyCircuitBreaker } from './apply-circuit-breaker';
import { applyStopWhen } from './apply-stop-when';
import type { ToolBatchResult } from './run-tool-batch';
import { outputOfEnding } from './take-output-answer';

/**
 * After a batch of tool calls: a terminating tool ended the run, or loop warnings are injected, the circuit breaker and
 * `stopWhen` look at the results, and a question makes the run wait; else the model is called again.
 */
export function afterToolBatch(
  context: RunContext,
  batch: ToolBatchResult,
  loopWarnings: readonly string[],
): StepOutcome {
  const { run } = context;
  run.lastToolResults = batch.executed.map(({ call, result }) => ({
    toolName: call.function.name,
    callId: call.id,
    contentPreview: preview(result.content),
    isError: result.isError,
  }));
  if (batch.ending !== undefined) return outputOfEnding(context, batch.ending);
  for (const warning of loopWarnings) inject(run, 'loop_warning', warning);
  const stopped = applyCircuitBreaker(context, batch.executed) ?? applyStopWhen(context);
  if (stopped !== undefined) return stopped;
  const asked = batch.executed.find(({ result }) => result.waitForInput !== undefined);
  if (asked !== undefined)
    return { kind: 'wait_for_input', callId: asked.call.id, question: asked.result.waitForInput?.question ?? '' };
  return runAgain;
}
