import { z } from 'zod';
import { msToNumber } from '../../src/shared/duration';
import { ACTIVITY_DEFAULTS } from '../../src/shared/defaults/activities';
import { terminateSignal } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { defineTool } from '../../src/tools/define-tool';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * A cancellation reaches a running tool only in the answer to a heartbeat, and
 * heartbeats are rare (the first one interval, 25 s, after the start). The
 * activity describes its run every check interval and heartbeats at once when
 * the run asked it to stop. The documented bound: a cancelled tool hears of it
 * within the check interval plus the worker's heartbeat throttle; here with 2 s
 * more for the signal's workflow task and a loaded machine.
 */
const BOUND_MS = ACTIVITY_DEFAULTS.cancelCheckIntervalMs + msToNumber(ACTIVITY_DEFAULTS.maxHeartbeatThrottleInterval);
const SLACK_MS = 2_000;

const runs: { started: number; abortedAt?: number }[] = [];
const waitingTool = defineTool({
  name: 'wait_for_stop',
  description: 'Waits 20 seconds unless cancelled.',
  parameters: z.object({}),
  execute: async (_args, { signal }) => {
    const record: { started: number; abortedAt?: number } = { started: Date.now() };
    runs.push(record);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 20_000);
      signal.addEventListener('abort', () => {
        record.abortedAt = Date.now();
        clearTimeout(timer);
        resolve();
      });
    });
    return 'waited';
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [waitingTool] });
});
afterAll(async () => {
  await env.close();
});

describe('a cancellation reaches a running tool within the stop check interval and throttle', () => {
  test.each([
    ['at once, before its first heartbeat', 0],
    ['between two checks of its run', 7_500],
  ])('terminated %s', async (_moment, afterStartMs) => {
    expect(BOUND_MS).toBe(6_000);
    const model = env.scenario([{ toolCalls: [{ name: 'wait_for_stop', arguments: {} }] }]);
    const before = runs.length;
    const handle = await env.start({ model, tools: ['wait_for_stop'], message: 'wait' });
    const run = await waitFor(
      async () => runs[before],
      (record) => record !== undefined,
      20_000,
    );
    if (afterStartMs > 0) await new Promise((resolve) => setTimeout(resolve, afterStartMs));
    const signalledAt = Date.now();
    await handle.signal(terminateSignal, { reason: 'stop waiting' });
    const result = (await handle.result()) as AgentResult;

    expect(result.terminationReason).toEqual({ type: 'external', via: 'signal', reason: 'stop waiting' });
    const aborted = await waitFor(
      async () => run?.abortedAt,
      (at) => at !== undefined,
      10_000,
    );
    expect((aborted ?? Number.POSITIVE_INFINITY) - signalledAt).toBeLessThan(BOUND_MS + SLACK_MS);
  });
});
