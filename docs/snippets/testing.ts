import { ScriptedModelServer, startDevServer, type StartedDevServer } from 'agent-runner/testing';

/**
 * A model for tests: it answers the OpenAI chat-completions API from a script. The run's `model` input names the
 * script; here the agent looks the order up, then answers.
 */
export async function scriptedModel(): Promise<ScriptedModelServer> {
  const model = await ScriptedModelServer.start();
  model.script('order-scenario', [
    { toolCalls: [{ name: 'lookup_order', arguments: { orderNumber: '42' } }] },
    { content: 'Order 42 has shipped.' },
  ]);
  return model;
}

/** A Temporal dev server with the agent's search attributes, on free ports. */
export function devServer(): Promise<StartedDevServer> {
  return startDevServer({ port: 0, uiPort: 0, log: (line) => console.log(line) });
}
