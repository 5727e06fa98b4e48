import { getAgentState } from '../../client';
import { withAgentClient } from '../agent-client';
import { ExitCode } from '../exit-codes';
import { createOutput } from '../output';
import { describeState } from '../state-lines';

/** `agent-runner status`: the run's live state; it answers during and after the run. */
export async function statusCommand(workflowId: string, options: { json?: boolean }): Promise<ExitCode> {
  const output = createOutput(options.json === true);
  const state = await withAgentClient((client) => getAgentState(client, workflowId));
  if (output.json) output.jsonDocument(state);
  else for (const line of describeState(state, workflowId)) output.line(line);
  return ExitCode.ok;
}
