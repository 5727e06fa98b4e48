import type { WorkflowExecutionStatusName } from '@temporalio/client';
import { hasRunEnded, isRefusedAsEnded } from '../../src/temporal/run-ended';

/** The one test of "has this run ended?" that the client, the API and the CLI share. */
describe('hasRunEnded', () => {
  test('a running run has not ended', () => {
    expect(hasRunEnded('RUNNING')).toBe(false);
  });

  // Every other status counts as ended, as each caller decided before (`status !== 'RUNNING'`). PAUSED (Temporal's
  // workflow pause) is kept so too, unchanged here, though a paused run may resume: nothing here pauses runs.
  test.each<WorkflowExecutionStatusName>([
    'COMPLETED',
    'FAILED',
    'CANCELLED',
    'TERMINATED',
    'CONTINUED_AS_NEW',
    'TIMED_OUT',
    'PAUSED',
    'UNSPECIFIED',
    'UNKNOWN',
  ])('%s has ended', (status) => {
    expect(hasRunEnded(status)).toBe(true);
  });
});

describe('isRefusedAsEnded', () => {
  test("Temporal's refusal of a signal to a closed run says it has ended", () => {
    expect(
      isRefusedAsEnded(Object.assign(new Error('5 NOT_FOUND: workflow execution already completed'), { code: 5 })),
    ).toBe(true);
  });

  test.each([
    ['not found', Object.assign(new Error('5 NOT_FOUND: workflow not found for ID: x'), { code: 5 })],
    ['another error', new Error('connection refused')],
    ['not an error', 'already completed'],
  ])('%s is not', (_what, error) => {
    expect(isRefusedAsEnded(error)).toBe(false);
  });
});
