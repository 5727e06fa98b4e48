import type { ApplicationFailure } from '@temporalio/workflow';
import type { TerminationReason } from '../../shared/agent-result';
import type { ToolCall } from '../../shared/messages';

/**
 * What a step decides the run does next: one discriminated union, settled in
 * one place, `settle` in `agent-workflow.ts`. A step returns `undefined` where
 * it has nothing to decide and the iteration goes on.
 *
 * Steps between awaits run synchronously, so an outcome settles in the turn
 * it is decided and a timer firing in the same activation (the run's timeout)
 * sees the same state on replay.
 */
export type StepOutcome =
  /** Call the model again: the next iteration. */
  | { kind: 'run_again' }
  /**
   * End the run with `reason`, `response` its answer. `unexecuted` are tool calls
   * of the last response the run stops before running; each gets a "not executed" result.
   */
  | {
      kind: 'finish';
      reason: TerminationReason;
      response: string;
      unexecuted?: ToolCall[];
      /** Structured output: the valid answer, when the run has an output schema and ends with one. */
      output?: { value: unknown };
      /** The response is an answer the token cap cut, accepted as it is. */
      truncated?: true;
    }
  /** Fail the run with `failure` (a non-retryable `ApplicationFailure` from `failures.ts`). */
  | { kind: 'fail'; failure: ApplicationFailure }
  /** A tool asked a person a question: wait for the answer, then run again (or finish when it does not come). */
  | { kind: 'wait_for_input'; callId: string; question: string }
  /** Hand the run to a new Temporal run with the same id, so its history starts small again. */
  | { kind: 'continue_as_new' };

/** The outcomes that end the run (or this Temporal run): what `settle` takes. */
export type RunEnding = Extract<StepOutcome, { kind: 'finish' | 'fail' | 'continue_as_new' }>;

/** Call the model again. */
export const runAgain = { kind: 'run_again' } as const satisfies StepOutcome;
