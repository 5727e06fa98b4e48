import type { Client } from '@temporalio/client';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { type AgentInput } from '../../src/shared/agent-input';
import { CHAOS_MCP_TOOL } from './chaos-mcp';
import { CHAOS_TOOL } from './chaos-tool';
import { chaosTask } from './chaos-agent';
import { CHAOS_DELEGATE } from './chaos-delegate';
import { withChildRuns } from './child-runs';
import { followRun } from './follow-run';
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
 * retried until the deadline. Each run calls the chaos MCP server's tool too, may hand tasks to `chaos_delegate`
 * (a nested agent) and caches results longer than `inlineThreshold`, so the
 * chaos agent reads slices back with `result_cache`; a completed run's
 * outcome lists its child runs.
 */
export async function startRunBatch(options: {
  client: Client;
  taskQueue: string;
  prefix: string;
  labels: readonly string[];
  iterations: number;
  /** Tool results longer than this many characters are kept in the run's result cache. */
  inlineThreshold: number;
  deadline: number;
  /**
   * Starts run `index` some other way than the Temporal client (through the HTTP API), under `workflowId`.
   * @default `client.workflow.start` on `taskQueue`
   */
  start?: (workflowId: string, input: AgentInput, index: number) => Promise<void>;
}): Promise<RunBatch> {
  const { client, taskQueue, prefix, labels, iterations, inlineThreshold, deadline } = options;
  let ended = 0;
  const handles = await Promise.all(
    labels.map(async (label, index) => {
      const workflowId = `${prefix}-${label}`;
      const input: AgentInput = {
        tools: [CHAOS_TOOL, CHAOS_MCP_TOOL, CHAOS_DELEGATE, 'finish'],
        message: chaosTask(label, iterations),
        resultProcessing: { inlineThreshold },
      };
      if (options.start === undefined) {
        return client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId, args: [input] });
      }
      await options.start(workflowId, input, index);
      return client.workflow.getHandle(workflowId);
    }),
  );
  const outcomes = Promise.all(
    handles.map(async (handle) => {
      const outcome = await withChildRuns(client, handle.workflowId, await followRun(handle, deadline), deadline);
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
