import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import { FailureType, type FailureTypeName } from '../shared/failure-catalogue';
import { withoutClosedRun } from '../shared/closed-run';

/**
 * How the failure came about: `application` raised on purpose, `terminated` or `timed-out` by Temporal, `other` else.
 */
type FailureKind = 'application' | 'terminated' | 'timed-out' | 'other';

/** A failure as data: what callers branch on and show. */
export interface Failure {
  /**
   * A catalogue type ({@link FailureTypeName}) when the runner raised it; else
   * Temporal's name for the failure (`TerminatedFailure`, `TimeoutFailure`, ...),
   * or `Error` ({@link FailureType.untyped}) when there is none.
   */
  type: FailureTypeName | string;
  message: string;
  /** The `ApplicationFailure`'s details (without a failed run's record for its readers); empty for any other kind. */
  details: unknown[];
  kind: FailureKind;
}

/** A Temporal error that carries the failure as its `cause`. */
export type FailureWrapper = WorkflowFailedError | WorkflowUpdateFailedError | ChildWorkflowFailure | ActivityFailure;

/**
 * The failure inside a Temporal error, one level down (a wrapper's `cause`, or an `ApplicationFailure` itself);
 * undefined for any other error, which the caller passes on.
 */
export function failureOf(error: FailureWrapper | ApplicationFailure): Failure;
export function failureOf(error: unknown): Failure | undefined;
export function failureOf(error: unknown): Failure | undefined {
  if (isWrapper(error)) return describe(error.cause, error);
  if (error instanceof ApplicationFailure) return describe(error, error);
  return undefined;
}

function isWrapper(error: unknown): error is FailureWrapper {
  return (
    error instanceof WorkflowFailedError ||
    error instanceof WorkflowUpdateFailedError ||
    error instanceof ChildWorkflowFailure ||
    error instanceof ActivityFailure
  );
}

function describe(cause: Error | undefined, carrier: Error): Failure {
  if (cause instanceof ApplicationFailure) {
    return {
      type: cause.type ?? FailureType.untyped,
      message: cause.message,
      details: withoutClosedRun(cause.details ?? []),
      kind: 'application',
    };
  }
  const kind: FailureKind =
    cause instanceof TerminatedFailure ? 'terminated' : cause instanceof TimeoutFailure ? 'timed-out' : 'other';
  return { type: cause?.name ?? FailureType.untyped, message: cause?.message ?? carrier.message, details: [], kind };
}
