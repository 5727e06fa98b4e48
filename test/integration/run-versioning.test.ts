import { NoCurrentVersionError, runAgent, startAgentRun } from '../../src/client';
import { TestEnv } from '../helpers/test-env';

/*
 * A run's `versioning` on the suite's unversioned worker (the dev server): auto-upgrade is an override that names no
 * version, so the run goes on as any other; pinned needs a current deployment version, which an unversioned task
 * queue lacks, so nothing is started. What it does on versioned workers is test/stack/deploys.test.ts.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

test("auto-upgrade on an unversioned worker runs as usual, with the choice in the run's memo", async () => {
  const model = env.scenario([{ content: 'done' }]);
  const result = await runAgent(
    env.client,
    { model, tools: [], message: 'go' },
    { taskQueue: env.taskQueue, versioning: 'auto-upgrade' },
  );
  expect(result.response).toBe('done');
  const description = await env.client.workflow.getHandle(result.workflowId).describe();
  expect(await description.memo).toEqual({ agentVersioning: 'auto-upgrade' });
});

test('pinned with no current deployment version throws NoCurrentVersionError and starts nothing', async () => {
  const attempt = startAgentRun(
    env.client,
    { tools: [], message: 'go' },
    { taskQueue: env.taskQueue, workflowId: 'pinned-never-started', versioning: 'pinned' },
  );
  await expect(attempt).rejects.toThrow(NoCurrentVersionError);
  await expect(attempt).rejects.toThrow(
    `versioning: 'pinned' needs a current worker deployment version on task queue "${env.taskQueue}"`,
  );
  await expect(env.client.workflow.getHandle('pinned-never-started').describe()).rejects.toThrow(/not found/i);
});
