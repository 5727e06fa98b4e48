import type { Client } from '@temporalio/client';
import { startAgentRun, type AgentRun } from '../../client';
import type { TemporalConfig } from '../../config';
import type { AgentInput } from '../../shared/agent-input';
import type { RunVersioning } from '../../shared/versioning';
import type { AgentInputOptions } from '../agent-input-options';
import type { Output } from '../output';
import { statusCommand, terminateCommand, watchCommand } from '../steering-commands';

/** Options `run` and `start` share besides the input. */
export interface StartOptions extends AgentInputOptions {
  /** The run's workflow id. @default `agent-<uuid>` */
  id?: string;
  /** How the run moves between builds of versioned workers. @default the workers' `AGENT_VERSIONING_DEFAULT` */
  versioning?: RunVersioning;
  json?: boolean;
}

/** Starts the run on the configured task queue. */
export function startRun(
  client: Client,
  config: TemporalConfig,
  input: AgentInput,
  options: StartOptions,
): Promise<AgentRun> {
  return startAgentRun(client, input, {
    taskQueue: config.taskQueue,
    ...(options.id === undefined ? {} : { workflowId: options.id }),
    ...(options.versioning === undefined ? {} : { versioning: options.versioning }),
  });
}

/** The started run and the commands that steer it, as notices (stderr under `--json`). */
export function announceStart(run: AgentRun, taskQueue: string, output: Output, extra: string[] = []): void {
  output.notice(`Started run ${run.workflowId} on task queue "${taskQueue}" (Temporal run id ${run.runId}).`);
  output.notice(`  follow it: ${watchCommand(run.workflowId)}`);
  output.notice(`  status:    ${statusCommand(run.workflowId)}`);
  output.notice(`  stop it:   ${terminateCommand(run.workflowId)}`);
  for (const line of extra) output.notice(line);
}
