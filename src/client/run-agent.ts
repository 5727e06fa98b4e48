import type { Client } from '@temporalio/client';
import type { AgentInput } from '../shared/agent-input';
import type { AgentResult } from '../shared/agent-result';
import type { OutputOf } from '../shared/typed-output';
import { getAgentResult } from './agent-result';
import { AgentOutputMissingError } from './agent-output-missing-error';
import { startAgentRun, type StartAgentRunOptions } from './start-agent-run';

/**
 * What {@link runAgent} returns for `input`: the result, with `output` typed as the answer of the input's
 * `OutputSpec` (`outputSchema(zodSchema)`), and always there, when the input has one.
 */
export type AgentRunResult<Input extends AgentInput = AgentInput> = ([OutputOf<Input>] extends [never]
  ? AgentResult
  : Omit<AgentResult, 'output'> & { output: OutputOf<Input> }) & { workflowId: string; runId: string };

/**
 * Starts a run and waits for its result. With an output schema (`output: outputSchema(zodSchema)`) the result's
 * `output` is typed as the schema's output, and a run that ended without an answer throws
 * {@link AgentOutputMissingError}; a run that never gave a valid one fails (`AgentRunFailedError`, `Output.Invalid`).
 */
export async function runAgent<Input extends AgentInput>(
  client: Client,
  input: Input,
  options: StartAgentRunOptions = {},
): Promise<AgentRunResult<Input>> {
  const run = await startAgentRun(client, input, options);
  const result = {
    ...(await getAgentResult(client, run.workflowId, run.runId)),
    workflowId: run.workflowId,
    runId: run.runId,
  };
  if (input.output !== undefined && !('output' in result)) throw new AgentOutputMissingError(result);
  return result as AgentRunResult<Input>;
}
