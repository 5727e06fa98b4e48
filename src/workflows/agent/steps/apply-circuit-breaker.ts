import { DEFAULT_CIRCUIT_BREAKER_THRESHOLD } from '../../../shared/defaults/context-control';
import { trackToolResult } from '../../rules/circuit-breaker';
import type { RunContext } from '../run-context';
import type { RunEnding } from '../step-outcome';
import type { ExecutedCall } from './run-tool-batch';

/**
 * The circuit breaker over a batch's results, in call order: its state moves
 * on in the run record, and a trip is logged and finishes the run.
 */
export function applyCircuitBreaker(context: RunContext, executed: ExecutedCall[]): RunEnding | undefined {
  const { run, input } = context;
  const threshold = input.circuitBreaker?.threshold ?? DEFAULT_CIRCUIT_BREAKER_THRESHOLD;
  for (const { call, result } of executed) {
    const tracked = trackToolResult(run.breaker, call.function.name, result, threshold);
    run.breaker = tracked.state;
    if (tracked.tripped !== undefined) {
      const { toolName, errorText, count } = tracked.tripped;
      run.events.append('circuit-breaker-trip', { iteration: run.iteration, toolName, errorText, count });
      return {
        kind: 'finish',
        reason: { type: 'circuit_breaker', toolName, errorText, count },
        response: `Stopped: ${toolName} failed ${count} times in a row with the same error: ${errorText}`,
      };
    }
  }
  return undefined;
}
