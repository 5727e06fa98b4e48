import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { WORKFLOW_TYPE, type AgentResult } from '../../src/shared';
import { CHAOS_TOOL } from './chaos-tool';
import { chaosTask } from './chaos-agent';
import type { RunOutcome } from './run-comparison';

/** A batch of chaos runs in flight and how many have ended. */
export interface RunBatch {
  workflowIds: string[];
  /** Each run's outcome, in the order of `labels`; settles by the deadline. */
  outcomes: Promise<RunOutcome[]>;
  ended(): number;
  /** Terminates the runs still going (the stuck ones), so they load neither the next phase nor the server. */
  terminateUnfinished(): Promise<void>;
}

/**
 * Starts one run per label (workflow id `<prefix>-<label>`) and follows each
 * to its end. A run not ended at `deadline` (a `performance.now()` time) is
 * stuck. Reading a result survives the server going away: a failed read is
 * retried until the deadline.
 */
export async function startRunBatch(options: {
  client: Client;
  taskQueue: string;
  prefix: string;
  labels: readonly string[];
  iterations: number;
  deadline: number;
}): Promise<RunBatch> {
  const { client, taskQueue, prefix, labels, iterations, deadline } = options;
  let ended = 0;
  const handles = await Promise.all(
    labels.map((label) =>
      client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `${prefix}-${label}`,
        args: [{ tools: [CHAOS_TOOL, 'finish'], message: chaosTask(label, iterations) }],
      }),
    ),
  );
  const outcomes = Promise.all(
    handles.map(async (handle) => {
      const outcome = await followRun(handle, deadline);
      ended += 1;
      return outcome;
    }),
  );
  const terminateUnfinished = async () => {
    await Promise.all(
      handles.map(async (handle) => {
        try {
          await handle.terminate('the chaos harness gave up on this run (stuck)');
        } catch {
          // Already ended: nothing to stop.
        }
      }),
    );
  };
  return { workflowIds: handles.map((handle) => handle.workflowId), outcomes, ended: () => ended, terminateUnfinished };
}

async function followRun(handle: WorkflowHandle, deadline: number): Promise<RunOutcome> {
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
  return { status: 'stuck' };
}

function describeFailure(error: WorkflowFailedError): string {
  const cause = error.cause;
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'ApplicationFailure'}: ${cause.message}`;
  return cause === undefined ? error.message : `${cause.name}: ${cause.message}`;
}
