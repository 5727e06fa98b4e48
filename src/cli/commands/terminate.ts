import { terminateAgentRun } from '../../client/run-control';
import { explainMissingRun, withAgentClient } from '../agent-client';
import { ExitCode } from '../exit-codes';
import { followRun } from '../follow-run';
import { createOutput } from '../output';
import { watchCommand } from '../steering-commands';

/**
 * `agent-runner terminate`: ask the run to stop now, gracefully (in-flight
 * calls are cancelled, the run returns what it has). With `--wait` it
 * follows the run from the request to its end and exits with its code.
 */
export async function terminateCommand(
  workflowId: string,
  options: { reason?: string; wait?: boolean; json?: boolean },
): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  return withAgentClient(async (client) => {
    await terminateAgentRun(client, workflowId, options.reason).catch((error: unknown) =>
      explainMissingRun(client, workflowId, error),
    );
    if (options.wait !== true) {
      if (output.json) output.jsonDocument({ workflowId, terminateRequested: true });
      else
        output.line(
          `Asked run ${workflowId} to terminate gracefully. Follow it to its end: ${watchCommand(workflowId)}`,
        );
      return ExitCode.ok;
    }
    output.notice(`Asked run ${workflowId} to terminate gracefully; waiting for it to end (Ctrl-C stops waiting).`);
    return followRun(client, workflowId, {
      output,
      policy: 'stop',
      terminationRequested: true,
      printFrom: (event) => event.type === 'terminate-request',
    });
  });
}
