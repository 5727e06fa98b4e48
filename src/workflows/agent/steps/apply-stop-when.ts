import { subtractUsage, type ToolCall } from '../../../shared/messages';
import { stopConditionRegistry } from '../../rules/custom-stop-conditions';
import { evaluateStopCondition } from '../../rules/stop-conditions';
import type { RunContext } from '../run-context';
import { lastAssistantMessage, lastAssistantText, runUsage } from '../run-record';
import type { RunEnding } from '../step-outcome';

/**
 * `stopWhen` over the current turn, after a model response and after a batch
 * of tool calls: a finish when it holds (logged as a `stop-condition` event),
 * else `undefined`. After a response, `unexecuted` are its tool calls, which
 * the run then stops before running.
 */
export function applyStopWhen(context: RunContext, unexecuted: readonly ToolCall[] = []): RunEnding | undefined {
  const { run, input } = context;
  if (input.stopWhen === undefined) return undefined;
  const verdict = evaluateStopCondition(
    input.stopWhen,
    {
      iteration: run.iteration,
      turnIteration: run.iteration - run.turn.iteration,
      turnStartedAtMs: run.turn.startedAtMs,
      nowMs: new Date().getTime(),
      turnMessages: run.messages.slice(run.turn.messageIndex),
      turnMessagesLeftBehind: run.turn.leftBehind ?? 0,
      turnUsage: subtractUsage(run.usage, run.turn.usage),
      executedTools: run.turn.executedTools,
      externalStopRequested: run.externalStopRequested,
      response: lastAssistantMessage(run),
      totalUsage: runUsage(run),
      toolCallsExecuted: run.toolCallsExecuted,
      lastToolResults: run.lastToolResults,
      agentAnswers: run.turn.agentAnswers ?? [],
    },
    stopConditionRegistry,
  );
  if (!verdict.stop) return undefined;
  run.events.append('stop-condition-match', { condition: verdict.condition, detail: verdict.detail });
  return {
    kind: 'finish',
    reason: { type: 'stop_condition', condition: verdict.condition, detail: verdict.detail },
    response: lastAssistantText(run),
    ...(unexecuted.length === 0 ? {} : { unexecuted: [...unexecuted] }),
  };
}
