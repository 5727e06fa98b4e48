import type { WorkflowHandle } from '@temporalio/client';
import { stateQuery, type AgentState } from '../../src/shared';

/** Polls `check` every 100 ms until it holds, failing after `timeoutMs` with what it last saw. */
export async function waitFor<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!check(last)) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  return last;
}

/** The run's state once `check` holds. */
export function waitForState(handle: WorkflowHandle, check: (state: AgentState) => boolean, timeoutMs?: number): Promise<AgentState> {
  return waitFor(() => handle.query(stateQuery), check, timeoutMs);
}
