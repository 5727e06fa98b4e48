import type { ApplicationFailure } from '@temporalio/workflow';
import type { ParsedAgentInput } from '../../shared/agent-input';
import type { PartialRun } from './failures';
import type { RunRecord } from './run-record';

/**
 * What the pieces of one run share: its record, its validated input, and how
 * it publishes. `agentWorkflow` builds one per run and passes it
 * down explicitly; nothing of a run lives at module scope, because the
 * workflow modules are shared by every run in the worker's isolate.
 */
export interface RunContext {
  /** The run's record: state, conversation, event log. The pieces change it in place. */
  readonly run: RunRecord;
  readonly input: ParsedAgentInput;
  /** Upserts the search attributes that changed since the last call. */
  readonly publish: (run: RunRecord) => void;
  /**
   * Settles a failure at once, through the same `settle` as every ending, and
   * throws it: for the one step that cannot return its outcome, an approval
   * that timed out inside a parallel batch, which fails the run without
   * waiting for the batch's other calls.
   */
  readonly fail: (failure: ApplicationFailure) => never;
  /** What the run has produced so far, attached to a failure's details. */
  readonly partial: () => PartialRun;
  /**
   * The size guards and continue-as-new apply. False only while replaying a
   * run started before they existed, whose history has no marker for them.
   */
  readonly guarded: boolean;
  /**
   * Tool calls carry runner ids (see `call-identity.ts`). False only while replaying a run
   * started before them, which keyed its calls by the model's ids.
   */
  readonly runnerCallIds: boolean;
  /**
   * History grows with what is new: a large conversation stays out of the
   * model call's input (the activity reads it with the `modelRequest`
   * query) and out of the result (`resultMessages`). False only while
   * replaying a run started before, whose calls carried it inline.
   */
  readonly linearHistory: boolean;
  /**
   * A large final answer is carried once in the result (`shared/result-answer.ts`). False only
   * while replaying a run started before, whose result repeated it.
   */
  readonly answerOnce: boolean;
  /** When the run's `timeout` passes (an ISO time), if it has one: nested agents get what is left of it. */
  readonly deadline?: string;
}
