import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { type AgentResult } from '../../src/shared/agent-result';
import { crashWorkerStarter, useCrashWorld } from '../helpers/crash-worker';
import { waitFor } from '../helpers/wait';

/**
 * A tool call whose worker is SIGKILLed after the tool's side effect, again
 * and again: the call is retried until its deadline and the model is told
 * what the tool returned, never that it failed. Every execution of the call
 * carries the same idempotency key.
 */
describe('a tool call that loses its worker', () => {
  const world = useCrashWorld();

  test('is retried past three lost attempts and answers the model with the tool result', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'crash-recovery-'));
    const sideEffects = path.join(directory, 'side-effects.jsonl');
    await writeFile(sideEffects, '');
    const taskQueue = `crash-${randomUUID()}`;
    const startWorker = crashWorkerStarter({
      taskQueue,
      modelBaseURL: world.model.baseURL,
      sideEffects,
      workspace: directory,
    });
    const modelName = `crash-${randomUUID()}`;
    world.model.script(modelName, [
      { toolCalls: [{ name: 'slow_write', arguments: { label: 'report' } }] },
      { content: 'Done.' },
    ]);
    const records = async () =>
      (await readFile(sideEffects, 'utf8'))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { key: string; attempt: number; label: string });

    let worker = await startWorker();
    const handle = await world.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `crash-${randomUUID()}`,
      args: [{ model: modelName, tools: ['slow_write'], message: 'Write the report.' }],
    });
    try {
      // Three times: the side effect happens, then the worker dies before the call completes.
      for (let lost = 1; lost <= 3; lost += 1) {
        await waitFor(records, (lines) => lines.length >= lost, 90_000);
        process.kill(-(worker.child.pid as number), 'SIGKILL');
        worker = await startWorker();
      }
      const result = (await handle.result()) as AgentResult;

      const toolMessage = result.messages.find((message) => message.role === 'tool');
      expect(toolMessage?.content).toBe('wrote report');
      expect(result.response).toBe('Done.');
      const lines = await records();
      expect(lines.map((line) => line.attempt)).toEqual([1, 2, 3, 4]);
      expect(new Set(lines.map((line) => line.key)).size).toBe(1);
    } finally {
      process.kill(-(worker.child.pid as number), 'SIGKILL');
    }
  }, 240_000);
});
