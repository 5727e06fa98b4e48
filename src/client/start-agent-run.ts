import { randomUUID } from 'node:crypto';
import type { WorkflowHandle, Client } from '@temporalio/client';
import { loadClientTaskQueue } from '../config/temporal';
import { parseAgentInput, type AgentInput } from '../shared/agent-input';
import { WORKFLOW_TYPE } from '../shared/defaults/names';
import { VERSIONING_MEMO_KEY, type RunVersioning } from '../shared/versioning';
import { versioningOverrideFor } from '../temporal/deployment-version';
import { InvalidAgentInputError } from './invalid-agent-input-error';

/** Options of {@link startAgentRun}. */
export interface StartAgentRunOptions {
  /**
   * The run's workflow id. A given id is never reused, also once its run has ended (Temporal's
   * REJECT_DUPLICATE), so starting twice with one id starts one run. @default `agent-<uuid>`
   */
  workflowId?: string;
  /** @default `AGENT_TASK_QUEUE`, else 'agent-runner' */
  taskQueue?: string;
  /**
   * Worker Versioning (`docs/operations/deploys.md`): `'pinned'` stays on the build current at start (else
   * {@link NoCurrentVersionError}); `'auto-upgrade'` moves to the current build at its next workflow task.
   * @default the workers' `AGENT_VERSIONING_DEFAULT` (`auto-upgrade` unless set)
   */
  versioning?: RunVersioning;
}

/** A started run. */
export interface AgentRun {
  /** The run's id: what every other call takes. */
  workflowId: string;
  /** Its first Temporal run; a long run continues as new under the same `workflowId` with later ones. */
  runId: string;
  handle: WorkflowHandle;
}

/** Starts a run. The input is checked first, so a mistake throws here rather than failing a started run. */
export async function startAgentRun(
  client: Client,
  input: AgentInput,
  options: StartAgentRunOptions = {},
): Promise<AgentRun> {
  const parsed = parseAgentInput(input);
  if (!parsed.ok) throw new InvalidAgentInputError(parsed.problems);
  const workflowId = options.workflowId ?? `agent-${randomUUID()}`;
  const taskQueue = options.taskQueue ?? loadClientTaskQueue();
  const versioningOverride = await versioningOverrideFor(client, taskQueue, options.versioning);
  const handle = await client.workflow.start(WORKFLOW_TYPE, {
    taskQueue,
    workflowId,
    ...(versioningOverride === undefined ? {} : { versioningOverride }),
    // Read by the workflow, so that the choice holds across continue-as-new too (`src/workflows/agent/run-versioning.ts`).
    ...(options.versioning === undefined ? {} : { memo: { [VERSIONING_MEMO_KEY]: options.versioning } }),
    args: [input],
    // A caller's id names one run for good: reusing it must not quietly start a second one over the first.
    ...(options.workflowId === undefined ? {} : { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const }),
  });
  return { workflowId, runId: handle.firstExecutionRunId, handle };
}
