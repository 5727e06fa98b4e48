import * as wf from '@temporalio/workflow';
import {
  DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
  type TerminationReason,
  type ToolCall,
  type Usage,
} from '../../../shared';
import { trackToolResult } from '../../rules/circuit-breaker';
import { stopConditionRegistry } from '../../rules/custom-stop-conditions';
import { loopWarningMessage, trackToolCall, type LoopDetection } from '../../rules/loop-detection';
import type { RunContext } from '../run-context';
import { evaluateStopCondition, type StopVerdict } from '../../rules/stop-conditions';
import { findSizeBreach, projectedRunBytes, type SizeBreach } from '../../rules/size-rules';
import type { BatchEnding, ExecutedCall } from './run-tool-batch';

/**
 * The checks the loop makes between its steps, each of which can end the run:
 * `stopWhen`, loop detection, the circuit breaker and Temporal's size limits. The rules themselves are
 * pure functions in their own files; these apply them to the run, keep their
 * state in the run record and log what they found.
 */

/** `stopWhen` over the current turn: the termination reason when it holds. */
export function checkStopConditions(context: RunContext): TerminationReason | undefined {
  const { run, input } = context;
  if (input.stopWhen === undefined) return undefined;
  const verdict: StopVerdict = evaluateStopCondition(
    input.stopWhen,
    {
      iteration: run.iteration,
      turnIteration: run.iteration - run.turn.iteration,
      turnStartedAtMs: run.turn.startedAtMs,
      nowMs: new Date().getTime(),
      turnMessages: run.messages.slice(run.turn.messageIndex),
      turnUsage: subtractUsage(run.usage, run.turn.usage),
      executedTools: run.turn.executedTools,
      externalStopRequested: run.externalStopRequested,
    },
    stopConditionRegistry,
  );
  if (!verdict.stop) return undefined;
  run.events.append('stop-condition-match', { condition: verdict.condition, detail: verdict.detail });
  return { type: 'stop_condition', condition: verdict.condition, detail: verdict.detail };
}

/** Seed 002's loop detection over one response's calls, in order: warnings to inject, or a stop. */
export function detectLoops(context: RunContext, calls: ToolCall[]): { warnings: string[]; stop?: LoopDetection } {
  const { run, input } = context;
  const warnings: string[] = [];
  if (input.loopDetection === undefined) return { warnings };
  for (const call of calls) {
    const tracked = trackToolCall(run.loopTracker, call, input.loopDetection);
    run.loopTracker = tracked.tracker;
    const detection = tracked.detection;
    if (detection === undefined) continue;
    run.events.append('loop-detection', { iteration: run.iteration, ...detection });
    if (detection.action === 'stop') return { warnings, stop: detection };
    if (detection.action === 'inject_warning') warnings.push(loopWarningMessage(detection.toolName, detection.count));
  }
  return { warnings };
}

/** Seed 004's circuit breaker over a batch's results, in call order. */
export function checkBreaker(context: RunContext, executed: ExecutedCall[]): BatchEnding {
  const { run, input } = context;
  const threshold = input.circuitBreaker?.threshold ?? DEFAULT_CIRCUIT_BREAKER_THRESHOLD;
  for (const { call, result } of executed) {
    const tracked = trackToolResult(run.breaker, call.function.name, result, threshold);
    run.breaker = tracked.state;
    if (tracked.tripped !== undefined) {
      const { toolName, errorText, count } = tracked.tripped;
      run.events.append('circuit-breaker-trip', { iteration: run.iteration, toolName, errorText, count });
      return {
        reason: { type: 'circuit_breaker', toolName, errorText, count },
        response: `Stopped: ${toolName} failed ${count} times in a row with the same error: ${errorText}`,
      };
    }
  }
  return undefined;
}

/**
 * Before a model call: which of Temporal's size limits the call, the result
 * or the history would pass, if any.
 */
export function checkRunSize(context: RunContext): SizeBreach | undefined {
  const { run, input } = context;
  const info = wf.workflowInfo();
  const projected = projectedRunBytes(run.messages, run.inputMessageCount, input.instructions);
  return findSizeBreach(projected, { bytes: info.historySize, events: info.historyLength });
}

/** Tokens used since `before`: what the current turn has spent. */
export function subtractUsage(total: Usage, before: Usage): Usage {
  return {
    promptTokens: total.promptTokens - before.promptTokens,
    completionTokens: total.completionTokens - before.completionTokens,
    totalTokens: total.totalTokens - before.totalTokens,
  };
}
