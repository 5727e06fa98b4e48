import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { eventsQuery, stateQuery, userMessageSignal } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { defineTool } from '../../src/tools/define-tool';
import { TestEnv } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';

/**
 * What the seeds fix to the letter, pinned through a real worker: the default
 * of max_invocations is 64; parallel tool calls really run at the same time;
 * a message sent while the model works reaches the next model call.
 */

const SLOW_MS = 500;
/** When each slow call ran, in this process's clock (the worker runs here). */
const spans: { host: string; startedAt: number; endedAt: number }[] = [];
const slowTool = defineTool({
  name: 'slow',
  description: 'Takes half a second.',
  parameters: z.object({ host: z.string() }),
  execute: async ({ host }) => {
    const startedAt = Date.now();
    await sleep(SLOW_MS);
    spans.push({ host, startedAt, endedAt: Date.now() });
    return `slow ${host}`;
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [slowTool] });
});
afterAll(async () => {
  await env.close();
});

const slow = (host: string) => ({ name: 'slow', arguments: { host } });

describe('seed pins', () => {
  test('a run without maxInvocations may make 64 model calls', async () => {
    const model = env.scenario([{ content: 'done', delayMs: 3_000 }]);
    const handle = await env.start({ model, tools: [], message: 'hi' });
    const state = await waitForState(handle, (current) => current.iteration >= 1);
    expect(state.limits.maxInvocations).toBe(64);
    await handle.result();
  });

  test('parallelToolCalls: two slow calls of one answer run at the same time', async () => {
    spans.length = 0;
    const model = env.scenario([{ toolCalls: [slow('a'), slow('b')] }, { content: 'done' }]);
    const handle = await env.start({ model, tools: ['slow'], message: 'go', parallelToolCalls: true });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');

    // In the tools' own clock: each started before the other ended.
    expect(spans.map((span) => span.host).sort()).toEqual(['a', 'b']);
    const [first, second] = spans as [(typeof spans)[0], (typeof spans)[0]];
    expect(first.startedAt).toBeLessThan(second.endedAt);
    expect(second.startedAt).toBeLessThan(first.endedAt);
    // In the run's event log: both calls started before either ended, and the batch took about one call's time.
    const events = (await handle.query(eventsQuery, { after: 0 })).events;
    const calls = events
      .filter((event) => event.type === 'tool-call-start' || event.type === 'tool-call-end')
      .map((event) => event.type);
    expect(calls).toEqual(['tool-call-start', 'tool-call-start', 'tool-call-end', 'tool-call-end']);
    const batchMs = Math.max(first.endedAt, second.endedAt) - Math.min(first.startedAt, second.startedAt);
    expect(batchMs).toBeLessThan(2 * SLOW_MS);
  });

  test('with parallelToolCalls false the same calls run one after the other (what the parallel test tells apart)', async () => {
    spans.length = 0;
    const model = env.scenario([{ toolCalls: [slow('a'), slow('b')] }, { content: 'done' }]);
    await env.run({ model, tools: ['slow'], message: 'go', parallelToolCalls: false });
    const [first, second] = spans as [(typeof spans)[0], (typeof spans)[0]];
    expect(second.startedAt).toBeGreaterThanOrEqual(first.endedAt);
  });

  test('a userMessage sent while the model is working reaches the next model call', async () => {
    const model = env.scenario([{ toolCalls: [slow('a')], delayMs: 2_000 }, { content: 'done' }]);
    const handle = await env.start({ model, tools: ['slow'], message: 'go' });
    // The first call is in flight at the model: send the message now.
    await waitFor(
      async () => env.model.requests(model).length,
      (count) => count === 1,
    );
    await handle.signal(userMessageSignal, { content: 'Also check b, please.' });
    expect((await handle.query(stateQuery)).iteration).toBe(1);
    await handle.result();

    const [firstRequest, secondRequest] = env.model.requests(model);
    const userTexts = (request: typeof firstRequest) =>
      ((request?.messages ?? []) as { role: string; content?: unknown }[])
        .filter((message) => message.role === 'user')
        .map((message) => message.content);
    expect(userTexts(firstRequest)).toEqual(['go']);
    expect(userTexts(secondRequest)).toEqual(['go', 'Also check b, please.']);
  });
});
