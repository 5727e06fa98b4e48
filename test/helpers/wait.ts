import type { WorkflowHandle } from '@temporalio/client';
import { stateQuery } from '../../src/workflow-contract/definitions';
import { type AgentState } from '../../src/shared/agent-result';

/**
 * Polls `check` every 100 ms until it holds, failing after `timeoutMs` with
 * what it last saw. A `read` that throws (a query timing out on a loaded
 * machine) is tried again until the deadline, then its error is the failure.
 */
export async function waitFor<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: { value: T } | { error: unknown };
    try {
      last = { value: await read() };
    } catch (error) {
      last = { error };
    }
    if ('value' in last && check(last.value)) return last.value;
    if (Date.now() > deadline) {
      if ('error' in last) throw last.error;
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last.value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The run's state once `check` holds. */
export function waitForState(
  handle: WorkflowHandle,
  check: (state: AgentState) => boolean,
  timeoutMs?: number,
): Promise<AgentState> {
  return waitFor(() => handle.query(stateQuery), check, timeoutMs);
}
