import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  RetryState,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import { failureOf } from '../../src/temporal/failure-of';

/**
 * One unwrapper for the failures Temporal hands the client: a run's result,
 * an update's refusal, a child's or an activity's failure, each one level
 * down to the failure inside.
 */
const maxInvocations = ApplicationFailure.create({
  type: 'MaxInvocationsExceeded',
  message: 'Max invocations exceeded',
  nonRetryable: true,
  details: [{ limit: 3 }],
});

describe('failureOf', () => {
  test.each([
    [
      'WorkflowFailedError',
      new WorkflowFailedError('Workflow execution failed', maxInvocations, RetryState.NON_RETRYABLE_FAILURE),
    ],
    ['WorkflowUpdateFailedError', new WorkflowUpdateFailedError('Workflow Update failed', maxInvocations)],
    [
      'ChildWorkflowFailure',
      new ChildWorkflowFailure(
        'default',
        { workflowId: 'child', runId: 'r' },
        'agentWorkflow',
        RetryState.NON_RETRYABLE_FAILURE,
        maxInvocations,
      ),
    ],
    [
      'ActivityFailure',
      new ActivityFailure(
        'Activity task failed',
        'callModel',
        '1',
        RetryState.NON_RETRYABLE_FAILURE,
        'worker',
        maxInvocations,
      ),
    ],
    ['a bare ApplicationFailure', maxInvocations],
  ])('an ApplicationFailure inside a %s: its type, message and details', (_wrapper, error) => {
    expect(failureOf(error)).toEqual({
      type: 'MaxInvocationsExceeded',
      message: 'Max invocations exceeded',
      details: [{ limit: 3 }],
      kind: 'application',
    });
  });

  test('an ApplicationFailure without type or details is `Error`, with no details', () => {
    const untyped = new ApplicationFailure('no type here');
    expect(failureOf(new WorkflowUpdateFailedError('Workflow Update failed', untyped))).toEqual({
      type: 'Error',
      message: 'no type here',
      details: [],
      kind: 'application',
    });
  });

  test("a run terminated in Temporal: Temporal's name, the reason as message, kind terminated", () => {
    const error = new WorkflowFailedError(
      'Workflow execution terminated',
      new TerminatedFailure('operator said so'),
      RetryState.NON_RETRYABLE_FAILURE,
    );
    expect(failureOf(error)).toEqual({
      type: 'TerminatedFailure',
      message: 'operator said so',
      details: [],
      kind: 'terminated',
    });
  });

  test('a run past its execution timeout: kind timed-out', () => {
    const error = new WorkflowFailedError(
      'Workflow execution timed out',
      new TimeoutFailure('timed out', undefined, 'START_TO_CLOSE'),
      RetryState.TIMEOUT,
    );
    expect(failureOf(error)).toMatchObject({
      type: 'TimeoutFailure',
      message: 'timed out',
      details: [],
      kind: 'timed-out',
    });
  });

  test("a cancelled run: kind other, with Temporal's name", () => {
    const error = new WorkflowFailedError(
      'Workflow execution cancelled',
      new CancelledFailure('cancelled'),
      RetryState.NON_RETRYABLE_FAILURE,
    );
    expect(failureOf(error)).toEqual({ type: 'CancelledFailure', message: 'cancelled', details: [], kind: 'other' });
  });

  test("a wrapper without a cause: `Error`, with the wrapper's message", () => {
    expect(failureOf(new WorkflowUpdateFailedError('Workflow Update failed', undefined))).toEqual({
      type: 'Error',
      message: 'Workflow Update failed',
      details: [],
      kind: 'other',
    });
  });

  test('only one level down: a child failure inside a run failure is the child failure', () => {
    const child = new ChildWorkflowFailure(
      'default',
      { workflowId: 'child', runId: 'r' },
      'agentWorkflow',
      RetryState.NON_RETRYABLE_FAILURE,
      maxInvocations,
    );
    expect(
      failureOf(new WorkflowFailedError('Workflow execution failed', child, RetryState.NON_RETRYABLE_FAILURE)),
    ).toMatchObject({ type: 'ChildWorkflowFailure', kind: 'other' });
  });

  test.each([
    ['a plain Error', new Error('boom')],
    ['not found', new WorkflowNotFoundError('no such workflow', 'w', undefined)],
    ['a string', 'boom'],
    ['undefined', undefined],
  ])('%s carries no failure: undefined, for the caller to pass on', (_what, error) => {
    expect(failureOf(error)).toBeUndefined();
  });
});
