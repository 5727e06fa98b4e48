import type { AssistantMessage, ToolCall } from '../../../shared';
import { flaggedCalls } from '../../rules/call-identity';
import type { RunTools } from '../../rules/run-setup';
import { inject } from '../conversation-messages';
import type { RunContext } from '../run-context';
import { runAgain, type StepOutcome } from '../step-outcome';
import { applyCircuitBreaker } from './apply-circuit-breaker';
import { applyLoopDetection } from './apply-loop-detection';
import { applyStopWhen } from './apply-stop-when';
import { runToolBatch } from './run-tool-batch';

/**
 * A response with tool calls: loop detection may stop the run before they
 * run; then the batch runs (a terminating tool or `TerminateResponse` ends the
 * run), loop warnings are injected, the circuit breaker and `stopWhen` look
 * at the results, and a tool that asked a person a question makes the run
 * wait for the answer. Otherwise the model is called again.
 */
export async function runTools(
  context: RunContext,
  tools: RunTools,
  assistant: AssistantMessage,
  calls: ToolCall[],
  approvalRequired: readonly string[],
): Promise<StepOutcome> {
  const { run } = context;
  const loops = applyLoopDetection(context, calls, assistant.content ?? '');
  if (loops.stop !== undefined) return loops.stop;
  const batch = await runToolBatch(context, tools, assistant, calls, flaggedCalls(assistant, approvalRequired));
  if (batch.ending !== undefined) return batch.ending;
  for (const warning of loops.warnings) inject(run, 'loop_warning', warning);
  const afterTools = applyCircuitBreaker(context, batch.executed) ?? applyStopWhen(context);
  if (afterTools !== undefined) return afterTools;
  const asked = batch.executed.find(({ result }) => result.waitForInput !== undefined);
  if (asked !== undefined) return { kind: 'wait_for_input', callId: asked.call.id, question: asked.result.waitForInput?.question ?? '' };
  return runAgain;
}
