import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { AgentResult } from '../../src/shared/agent-result';
import type { RunOutcome } from './run-comparison';
import { diagnoseStall } from './stall-diagnosis';

/**
 * Waits for a run's end and says how it ended. A run not ended at
 * `deadline` (a `performance.now()` time) is stuck, with what it was doing
 * then (`diagnoseStall`). Reading a result survives the server going away:
 * a failed read is retried until the deadline.
 */
export async function followRun(handle: WorkflowHandle, deadline: number): Promise<RunOutcome> {
  while (performance.now() < deadline) {
    const remaining = deadline - performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), remaining);
    });
    try {
      const result = await Promise.race([handle.result() as Promise<AgentResult>, timedOut]);
      if (result === 'timeout') break;
      return { status: 'completed', result };
    } catch (error) {
      if (error instanceof WorkflowFailedError) return { status: 'failed', failure: describeFailure(error) };
      // The server is down or restarting: ask again shortly.
      await sleep(Math.min(1_000, Math.max(0, deadline - performance.now())));
    } finally {
      clearTimeout(timer);
    }
  }
  const diagnosis = await diagnoseStall(handle);
  return diagnosis === undefined ? { status: 'stuck' } : { status: 'stuck', diagnosis };
}

function describeFailure(error: WorkflowFailedError): string {
  const cause = error.cause;
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'ApplicationFailure'}: ${cause.message}`;
  return cause === undefined ? error.message : `${cause.name}: ${cause.message}`;
}
