import { listAgentRuns, type ListRunsOptions } from '../../client/run-control';
import { withAgentClient } from '../agent-client';
import { ExitCode } from '../exit-codes';
import { createOutput } from '../output';
import { formatRunTable } from '../run-table';

/** `agent-runner list`: agent runs, newest first, found by their search attributes. */
export async function listCommand(options: ListRunsOptions & { json?: boolean }): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  const runs = await withAgentClient((client) =>
    listAgentRuns(client, {
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.query === undefined ? {} : { query: options.query }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    }),
  );
  if (output.json) output.jsonDocument(runs);
  else for (const line of formatRunTable(runs)) output.line(line);
  return ExitCode.ok;
}
