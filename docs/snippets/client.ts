import { Client, Connection } from '@temporalio/client';
import { followRunEvents, runAgent, startAgentRun, type AgentInput } from 'agent-runner';

/** Runs an agent and waits for its answer; `model` names the model your endpoint serves. */
export async function askAboutOrder(address: string, taskQueue: string, model: string): Promise<string> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  try {
    const input: AgentInput = { model, tools: ['lookup_order'], message: 'Where is order 42?' };
    const result = await runAgent(client, input, { taskQueue });
    return result.response;
  } finally {
    await connection.close();
  }
}

/** Starts a run and prints its events as they happen, until the run ends. */
export async function followARun(client: Client, taskQueue: string): Promise<void> {
  const run = await startAgentRun(client, { tools: ['lookup_order'], message: 'Where is order 42?' }, { taskQueue });
  for await (const event of followRunEvents(client, run.workflowId)) {
    if (event.type === 'tool-call-start') console.log(`${event.seq}: the agent calls ${event.toolName}`);
    if (event.type === 'run-end') console.log(`the run has ended: ${event.status}`);
  }
}
