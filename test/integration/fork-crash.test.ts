import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { forkRun } from '../../src/client/fork-run';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { type AgentResult } from '../../src/shared/agent-result';
import { crashWorkerStarter, useCrashWorld } from '../helpers/crash-worker';

/**
 * A fork is started by one call to Temporal, after everything it takes from the source is read: a worker that dies
 * while the fork starts leaves a fork that the next worker runs to its end, and the source's side effect is not made
 * again.
 */
describe('a fork whose worker is SIGKILLed as it starts', () => {
  const world = useCrashWorld();

  test('runs to its end on the next worker, and the side effect before the fork point happened once', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'fork-crash-'));
    const sideEffects = path.join(directory, 'side-effects.jsonl');
    await writeFile(sideEffects, '');
    const taskQueue = `fork-crash-${randomUUID()}`;
    const startWorker = crashWorkerStarter({
      taskQueue,
      modelBaseURL: world.model.baseURL,
      sideEffects,
      workspace: directory,
    });
    const modelName = `fork-crash-${randomUUID()}`;
    world.model.script(modelName, [
      { toolCalls: [{ name: 'slow_write', arguments: { label: 'report' } }] },
      { content: 'Done.' },
    ]);
    // The fork's model call: slow to answer, so the worker may die with it in flight; its retry gets the second answer.
    const forkModel = `fork-crash-${randomUUID()}`;
    world.model.script(forkModel, [{ content: 'Done again.', delayMs: 1_500 }, { content: 'Done again.' }]);
    const lines = async () => (await readFile(sideEffects, 'utf8')).split('\n').filter((line) => line !== '');

    let worker = await startWorker();
    try {
      const source = await world.client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `fork-crash-${randomUUID()}`,
        args: [{ model: modelName, tools: ['slow_write'], message: 'Write the report.' }],
      });
      await source.result();
      expect(await lines()).toHaveLength(1);

      const fork = await forkRun(world.client, source.workflowId, {
        atIteration: 2,
        edit: { message: 'Once more.', input: { model: forkModel } },
      });
      process.kill(-(worker.child.pid as number), 'SIGKILL');
      worker = await startWorker();
      const result = (await fork.handle.result()) as AgentResult;

      expect(result.response).toBe('Done again.');
      expect(result.forkedFrom).toMatchObject({ runId: source.workflowId, iteration: 2 });
      expect(result.messages.map((message) => message.content)).toEqual([
        'Write the report.',
        null,
        'wrote report',
        'Once more.',
        'Done again.',
      ]);
      expect(await lines()).toHaveLength(1);
    } finally {
      process.kill(-(worker.child.pid as number), 'SIGKILL');
    }
  }, 240_000);
});
