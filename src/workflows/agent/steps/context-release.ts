import { CONTEXT_RELEASE_TOOL } from '../../../shared/defaults/context-control';
import { type ToolCall } from '../../../shared/messages';
import { type ToolCallResult, type ToolDescription } from '../../../shared/activity-types';
import { CONTEXT_RELEASE_DESCRIPTION, decideContextRelease } from '../../rules/context-release';
import type { RunContext } from '../run-context';

/**
 * The tools the workflow answers itself and offers to the model beside the
 * worker's: `context_release` while `masking` is on, unless the run names a
 * worker tool of that name (then that tool is the one called).
 */
export function workflowTools({ input }: RunContext): ToolDescription[] {
  if (input.masking === undefined || input.tools.includes(CONTEXT_RELEASE_TOOL)) return [];
  return [CONTEXT_RELEASE_DESCRIPTION];
}

/** The workflow's own tool named `name`, when the run offers one. */
export function workflowToolNamed(context: RunContext, name: string): ToolDescription | undefined {
  return workflowTools(context).find((tool) => tool.name === name);
}

/**
 * Answers a `context_release` call in the workflow: the released iterations
 * join the run's (carried across continue-as-new), and a `context-release`
 * event says which, when the call released any or ignored some.
 */
export function answerContextRelease({ run }: RunContext, call: ToolCall, argumentsText: string): ToolCallResult {
  const decision = decideContextRelease(argumentsText, run.iteration, run.releasedIterations);
  run.releasedIterations = decision.releasedIterations;
  if (decision.released.length > 0 || decision.ignored > 0) {
    run.events.append('context-release', {
      iteration: run.iteration,
      callId: call.id,
      released: decision.released,
      ignored: decision.ignored,
      totalReleased: decision.releasedIterations.length,
    });
  }
  return decision.result;
}
