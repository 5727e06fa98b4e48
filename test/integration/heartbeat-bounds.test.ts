import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { followRunEvents, terminateAgentRun } from '../../src/client';
import { ACTIVITY_DEFAULTS } from '../../src/shared/defaults/activities';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { msToNumber } from '../../src/shared/duration';
import { isModelStreamEvent } from '../../src/shared/model-stream-events';
import { streamUrlOf } from '../../src/shared/worker-identity';
import { crashWorkerStarter, useCrashWorld } from '../helpers/crash-worker';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * What heartbeats buy, with heartbeats rare (one every `AGENT_HEARTBEAT_INTERVAL`, 25 s by default, none in a
 * shorter call), through real workers at the defaults: followers find a call's stream with no heartbeat; a call
 * stops within 10 s of its run being stopped by the runner or terminated in Temporal; a call whose worker died runs
 * again within a minute.
 */

const STOP_BOUND_MS = 10_000;
const RETRY_BOUND_MS = 60_000;
const LONG_ANSWER = Array.from({ length: 400 }, (_, index) => `word${index}`).join(' ');

describe('heartbeats at the defaults', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await TestEnv.create();
  });
  afterAll(async () => {
    await env.close();
  });

  test('the defaults are what the bounds below are measured against', () => {
    expect(msToNumber(ACTIVITY_DEFAULTS.heartbeatTimeout)).toBe(50_000);
    expect(ACTIVITY_DEFAULTS.heartbeatIntervalMs).toBe(25_000);
    expect(ACTIVITY_DEFAULTS.cancelCheckIntervalMs).toBe(5_000);
  });

  test('a follower reads a streamed call that sent no heartbeat, at the path its worker identity names', async () => {
    const text = LONG_ANSWER.split(' ').slice(0, 60).join(' ');
    const model = env.scenario([{ content: text, tokenDelayMs: 50 }]);
    const handle = await env.start({ model, tools: [], message: 'stream' });
    let checked = false;
    let streamed = '';
    for await (const event of followRunEvents(env.client, handle.workflowId, { deltas: true })) {
      if (isModelStreamEvent(event) && event.type === 'model-text-delta') {
        streamed += event.text;
        if (!checked) {
          checked = true;
          const description = await handle.describe();
          const call = description.raw.pendingActivities?.find(
            (activity) => activity.activityType?.name === 'callModel',
          );
          expect(call).toBeDefined();
          expect(call?.lastHeartbeatTime ?? null).toBeNull();
          expect(call?.heartbeatDetails?.payloads ?? []).toHaveLength(0);
          expect(streamUrlOf(call?.lastWorkerIdentity)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        }
      }
    }
    expect(checked).toBe(true);
    expect(streamed).toBe(text);
  }, 60_000);

  test.each([
    ['stopped by the runner (terminate signal)', 'runner'],
    ['terminated in Temporal', 'temporal'],
  ])(
    'a model call stops within 10 s of its run being %s',
    async (_how, how) => {
      const model = env.scenario([{ content: LONG_ANSWER, tokenDelayMs: 150 }]);
      const handle = await env.start({ model, tools: [], message: 'write at length' });
      await waitFor(
        async () => env.model.sentChunks(model).length,
        (count) => count >= 3,
        30_000,
      );
      const stoppedAt = Date.now();
      if (how === 'runner') await terminateAgentRun(env.client, handle.workflowId, 'enough');
      else await handle.terminate('enough');
      // The stream stops when the activity aborts its request: no chunk is written after the connection closes.
      await waitFor(
        async () => env.model.sentChunks(model).at(-1)?.at ?? 0,
        (lastAt) => Date.now() - lastAt > 1_500,
        STOP_BOUND_MS + 10_000,
      );
      const lastChunkAt = env.model.sentChunks(model).at(-1)?.at ?? 0;
      expect(lastChunkAt - stoppedAt).toBeLessThan(STOP_BOUND_MS);
      expect(env.model.sentChunks(model).length).toBeLessThan(LONG_ANSWER.split(' ').length);
    },
    60_000,
  );
});

describe('a model call whose worker died', () => {
  const world = useCrashWorld();

  test('runs again on another worker within a minute', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'heartbeat-bounds-'));
    const taskQueue = `heartbeat-${randomUUID()}`;
    const startWorker = crashWorkerStarter({
      taskQueue,
      modelBaseURL: world.model.baseURL,
      sideEffects: path.join(directory, 'side-effects.jsonl'),
      workspace: directory,
      // The defaults, whatever the crash workers of other tests are given.
      extraEnv: { AGENT_HEARTBEAT_TIMEOUT: '', AGENT_HEARTBEAT_INTERVAL: '' },
    });
    const modelName = `heartbeat-${randomUUID()}`;
    const arrivals: number[] = [];
    world.model.respond(modelName, () => {
      arrivals.push(Date.now());
      // The first attempt's answer never comes before its worker is killed.
      return arrivals.length === 1 ? { content: 'too late', delayMs: 110_000 } : { content: 'Answered.' };
    });
    let worker = await startWorker();
    const handle = await world.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId: `heartbeat-${randomUUID()}`,
      args: [{ model: modelName, tools: [], message: 'Answer.' }],
    });
    try {
      await waitFor(
        async () => arrivals.length,
        (count) => count >= 1,
        60_000,
      );
      process.kill(-(worker.child.pid as number), 'SIGKILL');
      const killedAt = Date.now();
      worker = await startWorker();
      await waitFor(
        async () => arrivals.length,
        (count) => count >= 2,
        RETRY_BOUND_MS + 20_000,
      );
      expect((arrivals[1] ?? Number.POSITIVE_INFINITY) - killedAt).toBeLessThan(RETRY_BOUND_MS);
      const result = (await handle.result()) as { response: string };
      expect(result.response).toBe('Answered.');
    } finally {
      process.kill(-(worker.child.pid as number), 'SIGKILL');
    }
  }, 180_000);
});
