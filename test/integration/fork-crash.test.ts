import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { forkRun } from '../../src/client/fork-run';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { type AgentResult } from '../../src/shared/agent-result';
import { crashWorkerStarter, useCrashWorld } from '../helpers/crash-worker';
import { waitFor } from '../helpers/wait';

/** SIGKILLs a worker's process group; one that is gone already is left alone, so a failure keeps its own message. */
function killGroup(pid: number | undefined): void {
  try {
    process.kill(-(pid as number), 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * A fork is started by one call to Temporal, after everything it takes from the source is read: a worker that dies
 * while the fork starts leaves a fork that the next worker runs to its end, and the source's side effect is not made
 * again. The kill waits for an observable moment, the fork's first model call in flight, never for time.
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
      // A call lost with its worker is tried again once its heartbeat is missed: 10 s, not the default 50 s.
      extraEnv: { AGENT_HEARTBEAT_TIMEOUT: '10s', AGENT_HEARTBEAT_INTERVAL: '5s' },
    });
    const modelName = `fork-crash-${randomUUID()}`;
    world.model.script(modelName, [
      { toolCalls: [{ name: 'slow_write', arguments: { label: 'report' } }] },
      { content: 'Done.' },
    ]);
    // The fork's first model call is held long enough for the kill to land while it is in flight; its retry, made
    // by the next worker, gets the second answer.
    const forkModel = `fork-crash-${randomUUID()}`;
    world.model.script(forkModel, [{ content: 'Done again.', delayMs: 15_000 }, { content: 'Done again.' }]);
    const lines = async () => (await readFile(sideEffects, 'utf8')).split('\n').filter((line) => line !== '');

    let worker = await startWorker();
    try {
      const source = await world.client.workflow.start(WORKFLOW_TYPE, {
        taskQueue,
        workflowId: `fork-crash-${randomUUID()}`,
        args: [{ model: modelName, tools: ['slow_write'], message: 'Write the report.' }],
      });
      await source.result();
      // The source's one call; a loaded machine may have retried it (same idempotency key) past its 4 s timeout.
      const sourceLines = await lines();
      expect(new Set(sourceLines.map((line) => (JSON.parse(line) as { key: string }).key)).size).toBe(1);

      const fork = await forkRun(world.client, source.workflowId, {
        atIteration: 2,
        edit: { message: 'Once more.', input: { model: forkModel } },
      });
      // The worker dies once it has started the fork and its first model call is in flight, however slow it was.
      await waitFor(
        async () => world.model.requests(forkModel).length,
        (count) => count === 1,
        120_000,
      );
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
      // The kill landed with the call in flight: the next worker asked the model again.
      expect(world.model.requests(forkModel)).toHaveLength(2);
      expect(await lines()).toEqual(sourceLines);
    } finally {
      killGroup(worker.child.pid);
    }
  }, 240_000);
});
