import { withAgentClient } from '../agent-client';
import { loadAgentInput } from '../agent-input-options';
import { ExitCode } from '../exit-codes';
import { createOutput } from '../output';
import { announceStart, startRun, type StartOptions } from './start-run';

/** `agent-runner start`: start a run and return at once, printing its id and how to steer it. */
export async function startCommand(messageWords: string[], options: StartOptions): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  const input = await loadAgentInput(messageWords, options);
  await withAgentClient(async (client, config) => {
    const run = await startRun(client, config, input, options);
    if (output.json) output.jsonDocument({ workflowId: run.workflowId, runId: run.runId });
    else announceStart(run, config.taskQueue, output);
  });
  return ExitCode.ok;
}
