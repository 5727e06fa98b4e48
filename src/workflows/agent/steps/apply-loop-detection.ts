import type { ToolCall } from '../../../shared/messages';
import { loopWarningMessage, trackToolCall } from '../../rules/loop-detection';
import type { RunContext } from '../run-context';
import type { RunEnding } from '../step-outcome';

/**
 * Loop detection over one response's calls, in order, before any runs: the
 * tracker moves on in the run record, each detection is logged, and the
 * result is the warnings to inject after the batch, or a finish that stops
 * the run before the calls run.
 */
export function applyLoopDetection(
  context: RunContext,
  calls: ToolCall[],
  response: string,
): { warnings: string[]; stop?: RunEnding } {
  const { run, input } = context;
  const warnings: string[] = [];
  if (input.loopDetection === undefined) return { warnings };
  for (const call of calls) {
    const tracked = trackToolCall(run.loopTracker, call, input.loopDetection);
    run.loopTracker = tracked.tracker;
    const detection = tracked.detection;
    if (detection === undefined) continue;
    run.events.append('loop-detection', { iteration: run.iteration, ...detection });
    if (detection.action === 'stop') {
      return {
        warnings,
        stop: {
          kind: 'finish',
          reason: { type: 'loop_detected', toolName: detection.toolName, count: detection.count },
          response,
          unexecuted: calls,
        },
      };
    }
    if (detection.action === 'inject_warning') warnings.push(loopWarningMessage(detection.toolName, detection.count));
  }
  return { warnings };
}
