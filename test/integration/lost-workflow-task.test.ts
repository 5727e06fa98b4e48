import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { withAnswerRestored, type AgentWorkflowResult } from '../../src/shared/result-answer';
import { TestEnv } from '../helpers/test-env';

/**
 * A workflow task lost with its worker again and again (a worker killed while it held the task, as under the chaos
 * run's kills) is timed out by the server, and from the fourth attempt Temporal adds a doubling backoff (5 s, 10 s,
 * 20 s, ... up to `history.workflowTaskRetryMaxInterval`, stock 10 minutes) to the attempt's timeout. The project's
 * servers cap it (`LOCAL_SERVER_DEFAULTS.dynamicConfig`), so a run whose worker is back waits seconds, not minutes.
 * The test plays the dying worker itself: it takes each attempt of the run's first workflow task and never answers.
 */

/** The run's workflow task timeout here: each lost attempt costs this plus the server's backoff. */
const TASK_TIMEOUT_MS = 1_000;
/** The attempt the dying worker takes last: stock, its timeout is 1 s + 40 s; capped, 1 s + 10 s. */
const LAST_LOST_ATTEMPT = 7;

let env: TestEnv;

beforeAll(async () => {
  env = await TestEnv.create({ workerStarted: false });
});
afterAll(async () => {
  await env?.close();
});

/** Takes the next attempt of a workflow task from the run's queue, as a worker would, and drops it. */
async function takeAndDrop(taskQueue: string): Promise<number> {
  for (let poll = 0; poll < 5; poll += 1) {
    // A long poll needs a deadline past the server's own (about a minute), as a worker's has.
    const task = await env.client.connection.withDeadline(Date.now() + 90_000, () =>
      env.client.workflowService.pollWorkflowTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        identity: 'a worker that dies holding its task',
      }),
    );
    // A long poll that ended empty has no token: poll again.
    if (task.taskToken && task.taskToken.length > 0) return task.attempt ?? 1;
  }
  throw new Error('no workflow task came in five long polls');
}

test('a workflow task lost seven times runs on a live worker within 1 s + 10 s of the last loss, not 1 s + 40 s', async () => {
  const model = env.scenario([{ content: 'done' }]);
  const handle = await env.client.workflow.start(WORKFLOW_TYPE, {
    taskQueue: env.taskQueue,
    workflowId: `lost-task-${randomUUID()}`,
    args: [{ model, message: 'go', tools: [] }],
    workflowTaskTimeout: TASK_TIMEOUT_MS,
  });
  const attempts: number[] = [];
  while ((attempts.at(-1) ?? 0) < LAST_LOST_ATTEMPT) attempts.push(await takeAndDrop(env.taskQueue));
  const lostAt = performance.now();
  await env.startWorker();
  const result = withAnswerRestored((await handle.result()) as AgentWorkflowResult);
  const waitedMs = performance.now() - lostAt;

  expect(attempts).toEqual([1, 2, 3, 4, 5, 6, 7]);
  expect(result.response).toBe('done');
  // Capped: a timeout of about 11 s (the server jitters its backoff), then the worker's task and one model call;
  // stock it is about 41 s and more.
  expect(waitedMs).toBeGreaterThan(TASK_TIMEOUT_MS + 5_000);
  expect(waitedMs).toBeLessThan(TASK_TIMEOUT_MS + 24_000);
}, 180_000);
