import { randomUUID } from 'node:crypto';
import { askAboutOrder } from './client.js';
import { scriptedModel } from './testing.js';
import { createWorker } from './worker.js';

/**
 * One agent, end to end, on your own worker: the scripted model, a worker with the plugin, a run from the client.
 * Returns the agent's answer.
 */
export async function runOneAgent(address: string, workflowsPath: string): Promise<string> {
  const model = await scriptedModel();
  const taskQueue = `orders-${randomUUID()}`;
  const worker = await createWorker({
    address,
    taskQueue,
    workflowsPath,
    model: { baseURL: model.baseURL, apiKey: 'unused', defaultModel: 'order-scenario' },
  });
  try {
    return await worker.runUntil(askAboutOrder(address, taskQueue, 'order-scenario'));
  } finally {
    await worker.connection?.close();
    await model.close();
  }
}
