import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';

/** What `promise` rejected with; fails the test if it resolved. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the activity to reject, but it resolved');
}

/** Polls a synchronous `condition` every 10 ms until it holds. */
export async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The failure a run's result rejected with (`WorkflowFailedError`'s `ApplicationFailure` cause); throws on anything else or if it completed. */
export async function runFailureOf(result: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await result;
  } catch (error) {
    if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure) return error.cause;
    throw error;
  }
  throw new Error('the run completed; a failure was expected');
}

/** What `promise` rejected with, which must be an `ApplicationFailure`; fails the test on anything else, or if it resolved. */
export async function applicationFailureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await rejectionOf(promise);
  if (!(error instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(error)}`);
  return error;
}
