import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { ACTIVITY_DEFAULTS } from '../../src/shared/defaults/activities';
import { type AgentResult } from '../../src/shared/agent-result';
import type { ScriptStep } from '../../src/scripted-model/script';
import { crashWorkerStarter, useCrashWorld } from '../helpers/crash-worker';
import { waitFor } from '../helpers/wait';

/**
 * A model call's attempt budget counts the provider's failures only, through workers in processes of their own
 * (test/fixtures/crash-worker.ts, a 2 s heartbeat timeout so a lost attempt is found quickly): a provider that
 * keeps failing ends the run after `modelCallMaxAttempts` attempts, backing off between them, while a worker
 * SIGKILLed mid-call more often than that never exhausts the call.
 */
describe('a model call', () => {
  const world = useCrashWorld();
  const budget = ACTIVITY_DEFAULTS.modelCallMaxAttempts;

  /** A crash-worker starter on a task queue of its own. */
  async function workers() {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'model-call-attempts-'));
    const sideEffects = path.join(directory, 'side-effects.jsonl');
    await writeFile(sideEffects, '');
    const taskQueue = `model-attempts-${randomUUID()}`;
    const start = crashWorkerStarter({
      taskQueue,
      modelBaseURL: world.model.baseURL,
      sideEffects,
      workspace: directory,
      extraEnv: { AGENT_HEARTBEAT_TIMEOUT: '2 seconds', AGENT_HEARTBEAT_INTERVAL: '1 second' },
    });
    return { taskQueue, start };
  }

  /** Starts a run of one model call on `taskQueue`. */
  function startRun(taskQueue: string, modelName: string) {
    return world.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `model-attempts-${randomUUID()}`,
      args: [{ model: modelName, tools: [], message: 'Say done.' }],
    });
  }

  test('that the provider fails every time ends the run after its budget, with the documented failure', async () => {
    const { taskQueue, start } = await workers();
    const modelName = `failing-${randomUUID()}`;
    // A short Retry-After keeps the test quick; the budget is what is checked.
    const failure: ScriptStep = {
      error: { status: 503, message: 'overloaded', headers: { 'retry-after-ms': '50' } },
    };
    world.model.script(
      modelName,
      Array.from({ length: budget + 2 }, () => failure),
    );
    const worker = await start();
    try {
      const error = await startRun(taskQueue, modelName)
        .then((handle) => handle.result())
        .catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe('ModelCall.ServerError');
      expect((cause as ApplicationFailure).message).toContain(`Gave up after ${budget} attempts.`);
      expect((cause as ApplicationFailure).message).not.toContain('Retrying');
      expect(world.model.requests(modelName)).toHaveLength(budget);
    } finally {
      process.kill(-(worker.child.pid as number), 'SIGKILL');
    }
  }, 120_000);

  test('that the provider fails three times backs off 1 s, 2 s, 4 s and then answers', async () => {
    const { taskQueue, start } = await workers();
    const modelName = `recovering-${randomUUID()}`;
    const times: number[] = [];
    world.model.respond(modelName, () => {
      times.push(Date.now());
      return times.length <= 3 ? { error: { status: 500, message: 'busy' } } : { content: 'Done.' };
    });
    const worker = await start();
    try {
      const result = (await (await startRun(taskQueue, modelName)).result()) as AgentResult;

      expect(result.response).toBe('Done.');
      const gaps = times.slice(1).map((time, index) => time - (times[index] ?? 0));
      expect(gaps).toHaveLength(3);
      // Each delay at least the backoff's (1 s doubling); the request's own time only adds to it.
      gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(1_000 * 2 ** index - 50));
    } finally {
      process.kill(-(worker.child.pid as number), 'SIGKILL');
    }
  }, 120_000);

  test('whose worker is SIGKILLed mid-call more often than the budget still answers, as a crash-free run does', async () => {
    const { taskQueue, start } = await workers();
    const reference = `reference-${randomUUID()}`;
    world.model.script(reference, [{ content: 'Done.' }]);
    const crashed = `crashed-${randomUUID()}`;
    const kills = budget + 2;
    // Each lost attempt's request hangs until its worker is killed; the one after the last kill is answered.
    world.model.script(crashed, [
      ...Array.from({ length: kills }, () => ({ content: 'too late', delayMs: 20_000 })),
      { content: 'Done.' },
    ]);

    let worker = await start();
    try {
      const expected = (await (await startRun(taskQueue, reference)).result()) as AgentResult;
      const handle = await startRun(taskQueue, crashed);
      for (let lost = 1; lost <= kills; lost += 1) {
        await waitFor(
          async () => world.model.requests(crashed).length,
          (count) => count >= lost,
          60_000,
        );
        process.kill(-(worker.child.pid as number), 'SIGKILL');
        worker = await start();
      }
      const result = (await handle.result()) as AgentResult;

      expect(world.model.requests(crashed)).toHaveLength(kills + 1);
      expect(result.response).toBe(expected.response);
      expect(result.messages).toEqual(expected.messages);
      expect(result.iterations).toBe(expected.iterations);
    } finally {
      process.kill(-(worker.child.pid as number), 'SIGKILL');
    }
  }, 400_000);
});
