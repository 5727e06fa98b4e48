import type { ApplicationFailure } from '@temporalio/workflow';
import type { TerminationReason, ToolCall } from '../../shared';

/**
 * What a step decides the run does next: one discriminated union, settled in
 * one place, `settle` in `agent-workflow.ts`. A step returns `undefined` where
 * it has nothing to decide and the iteration goes on.
 */
export type StepOutcome =
  /** Call the model again: the next iteration. */
  | { kind: 'run_again' }
  /**
   * End the run with `reason`, `response` its answer. `unexecuted` are tool calls
   * of the last response the run stops before running; each gets a "not executed" result.
   */
  | { kind: 'finish'; reason: TerminationReason; response: string; unexecuted?: ToolCall[] }
  /** Fail the run with `failure` (a non-retryable `ApplicationFailure` from `failures.ts`). */
  | { kind: 'fail'; failure: ApplicationFailure }
  /** A tool asked a person a question: wait for the answer, then run again (or finish when it does not come). */
  | { kind: 'wait_for_input'; callId: string; question: string }
  /** Hand the run to a new Temporal run with the same id, so its history starts small again. */
  | { kind: 'continue_as_new' };

/**
 * An outcome decided where the step cannot return it: a failure inside a
 * batch of tool calls running in parallel (an approval that timed out with
 * `onTimeout: 'fail'`) ends the run at once, without waiting for the other
 * calls. The loop catches it and settles its outcome like any other.
 */
export class RunEnded extends Error {
  override readonly name = 'RunEnded';

  constructor(readonly outcome: Extract<StepOutcome, { kind: 'fail' }>) {
    super(`the run ended: ${outcome.failure.message}`);
  }
}

export const runAgain: StepOutcome = { kind: 'run_again' };
