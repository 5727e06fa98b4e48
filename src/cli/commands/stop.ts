import { stopAgentRun } from '../../client/run-control';
import { explainMissingRun, withAgentClient } from '../agent-client';
import { ExitCode } from '../exit-codes';
import { createOutput } from '../output';
import { terminateCommand, watchCommand } from '../steering-commands';

/**
 * `agent-runner stop`: ask the run to stop at its next check (the `stop` signal). Only a run whose `stopWhen`
 * contains `{ "external": true }` ends there; any other records the request and goes on, which the output says.
 */
export async function stopCommand(workflowId: string, options: { reason?: string; json?: boolean }): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  return withAgentClient(async (client) => {
    await stopAgentRun(client, workflowId, options.reason).catch((error: unknown) =>
      explainMissingRun(client, workflowId, error),
    );
    if (output.json) output.jsonDocument({ workflowId, stopRequested: true });
    else
      output.line(
        `Asked run ${workflowId} to stop at its next check. It stops only if its stopWhen contains {"external": true}; ` +
          `any other run goes on (end it now: ${terminateCommand(workflowId)}). Follow it: ${watchCommand(workflowId)}`,
      );
    return ExitCode.ok;
  });
}
