import { withAgentClient } from '../agent-client';
import type { ExitCode } from '../exit-codes';
import { followRun } from '../follow-run';
import { createOutput } from '../output';

/**
 * `agent-runner watch`: follow a run's events to its end, like `run` does,
 * from any terminal. Ctrl-C only stops watching: the run is not touched.
 */
export async function watchCommand(workflowId: string, options: { after?: number; json?: boolean }): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  return withAgentClient((client) =>
    followRun(client, workflowId, { output, policy: 'stop', after: options.after ?? 0 }),
  );
}
