import { z } from 'zod';
import { approveSignal, denySignal, terminateSignal } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type ChatMessage } from '../../src/shared/messages';
import { defineTool } from '../../src/tools/define-tool';
import { localActivities, scheduledActivities } from '../helpers/history';
import { TestEnv } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';

/**
 * Tools declared `local: true` (and the pure built-ins) run as Temporal local
 * activities: a `MarkerRecorded` event in the history instead of an
 * `ActivityTaskScheduled` one, with the same results as the regular path.
 */

const executions: string[] = [];
const localExplode = defineTool({
  name: 'local_explode',
  description: 'Always throws.',
  parameters: z.object({}),
  local: true,
  execute: () => {
    throw new Error('local boom');
  },
});
const localTransfer = defineTool({
  name: 'local_transfer',
  description: 'Moves money; calls over 100 need approval.',
  parameters: z.object({ amount: z.number().positive() }),
  local: true,
  needsApproval: ({ amount }) => amount > 100,
  execute: ({ amount }) => {
    executions.push(`transfer ${amount}`);
    return `transferred ${amount}`;
  },
});
const localSlow = defineTool({
  name: 'local_slow',
  description: 'Takes three seconds, past its one-second timeout.',
  parameters: z.object({}),
  local: true,
  timeout: '1 second',
  execute: async (_args, { signal }) => {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 3_000);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
    return 'finished late';
  },
});
const waits: { started: number; finished?: number }[] = [];
const localWait = defineTool({
  name: 'local_wait',
  description: 'Takes three seconds.',
  parameters: z.object({}),
  local: true,
  execute: async () => {
    const record: { started: number; finished?: number } = { started: Date.now() };
    waits.push(record);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    record.finished = Date.now();
    return 'waited';
  },
});
const remoteNote = defineTool({
  name: 'remote_note',
  description: 'A regular tool, run as an ordinary activity.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => {
    executions.push(`note ${text}`);
    return `noted ${text}`;
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [localExplode, localTransfer, localSlow, localWait, remoteNote] });
});
afterAll(async () => {
  await env.close();
});

function toolMessages(messages: ChatMessage[]): { id: string; content: string | null }[] {
  return messages.flatMap((message) =>
    message.role === 'tool' ? [{ id: message.tool_call_id, content: message.content }] : [],
  );
}

describe('local tools', () => {
  test('the calculator runs as a local activity, a regular tool as an activity, with the same results', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'calculator', arguments: { expression: '(2 + 3) * 4' } },
          { name: 'calculator', arguments: { expression: '1 / 0' } },
          { name: 'remote_note', arguments: { text: 'hello' } },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { note: 'all done' } }] },
    ]);
    const handle = await env.start({ model, tools: ['calculator', 'remote_note', 'finish'], message: 'go' });
    const result = (await handle.result()) as AgentResult;

    expect(result.response).toBe('all done');
    expect(result.terminationReason).toEqual({ type: 'terminate_response', toolName: 'finish', callId: 'call-2-1' });
    expect(toolMessages(result.messages)).toEqual([
      { id: 'call-1-1', content: '20' },
      { id: 'call-1-2', content: expect.stringMatching(/^Error: .*divi/i) },
      { id: 'call-1-3', content: 'noted hello' },
      { id: 'call-2-1', content: 'all done' },
    ]);
    const scheduled = await scheduledActivities(env.client, handle.workflowId);
    expect(scheduled.map((activity) => activity.summary)).toEqual([
      'model call · iteration 1',
      'remote_note {"text":"hello"} · iteration 1',
      'model call · iteration 2',
    ]);
    const local = await localActivities(env.client, handle.workflowId);
    expect(local).toEqual([
      { type: 'describeTools', summary: 'tool catalog' },
      { type: 'executeTool', summary: 'calculator {"expression":"(2 + 3) * 4"} · iteration 1' },
      { type: 'executeTool', summary: 'calculator {"expression":"1 / 0"} · iteration 1' },
      { type: 'executeTool', summary: 'finish {"note":"all done"} · iteration 2' },
    ]);
  });

  test('what a local tool throws comes back as its error result, and the run goes on', async () => {
    const model = env.scenario([{ toolCalls: [{ name: 'local_explode', arguments: {} }] }, { content: 'it exploded' }]);
    const handle = await env.start({ model, tools: ['local_explode'], message: 'go' });
    const result = (await handle.result()) as AgentResult;

    expect(result.response).toBe('it exploded');
    expect(toolMessages(result.messages)).toEqual([{ id: 'call-1-1', content: 'Error: local boom' }]);
    expect((await localActivities(env.client, handle.workflowId)).map((activity) => activity.type)).toEqual([
      'describeTools',
      'executeTool',
    ]);
    expect(
      (await scheduledActivities(env.client, handle.workflowId)).filter((activity) => activity.type === 'executeTool'),
    ).toEqual([]);
  });

  test('a local tool past its own timeout is answered once with a timeout error', async () => {
    const model = env.scenario([{ toolCalls: [{ name: 'local_slow', arguments: {} }] }, { content: 'too slow' }]);
    const result = await env.run({ model, tools: ['local_slow'], message: 'go' });

    expect(toolMessages(result.messages)).toEqual([
      {
        id: 'call-1-1',
        content: expect.stringMatching(
          /^Error: tool "local_slow" did not finish within its timeout \(0\.9 s\); it was stopped$/,
        ),
      },
    ]);
  });

  test('a local tool that needs approval does not run before it is approved, and never when denied', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'local_transfer', arguments: { amount: 500 }, id: 'call_big' },
          { name: 'local_transfer', arguments: { amount: 700 }, id: 'call_bigger' },
        ],
      },
      { content: 'one transfer done, one refused' },
    ]);
    const before = executions.length;
    const handle = await env.start({ model, tools: ['local_transfer'], message: 'pay', parallelToolCalls: false });
    await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    expect(executions.slice(before)).toEqual([]);
    expect((await localActivities(env.client, handle.workflowId)).map((activity) => activity.type)).toEqual([
      'describeTools',
    ]);

    await handle.signal(approveSignal, { callId: 'call-1-1' });
    await waitForState(handle, (state) => state.pendingApprovals.some((pending) => pending.callId === 'call-1-2'));
    await handle.signal(denySignal, { callId: 'call-1-2', reason: 'too much' });
    const result = (await handle.result()) as AgentResult;

    expect(executions.slice(before)).toEqual(['transfer 500']);
    expect(toolMessages(result.messages)).toEqual([
      { id: 'call-1-1', content: 'transferred 500' },
      { id: 'call-1-2', content: 'Denied: too much' },
    ]);
    expect((await localActivities(env.client, handle.workflowId)).map((activity) => activity.type)).toEqual([
      'describeTools',
      'executeTool',
    ]);
  });

  test('a run with regular tools only runs them as activities; its catalog is still loaded locally', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'remote_note', arguments: { text: 'only' } }] },
      { content: 'noted' },
    ]);
    const handle = await env.start({ model, tools: ['remote_note', 'calculator'], message: 'go' });
    await handle.result();

    expect(await localActivities(env.client, handle.workflowId)).toEqual([
      { type: 'describeTools', summary: 'tool catalog' },
    ]);
    expect((await scheduledActivities(env.client, handle.workflowId)).map((activity) => activity.type)).toEqual([
      'callModel',
      'executeTool',
      'callModel',
    ]);
  });

  test('a signal waits while a local tool runs: a terminate takes effect once the tool has finished', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'local_wait', arguments: {} }] },
      { content: 'too late', delayMs: 5_000 },
    ]);
    const before = waits.length;
    const handle = await env.start({ model, tools: ['local_wait'], message: 'wait' });
    const run = await waitFor(
      async () => waits[before],
      (record) => record !== undefined,
      20_000,
    );
    await handle.signal(terminateSignal, { reason: 'enough' });
    const result = (await handle.result()) as AgentResult;
    const endedAt = Date.now();

    // The workflow task that runs the local tool is still open: the signal is taken in after it, never during it.
    expect(run?.finished).toBeDefined();
    expect(endedAt).toBeGreaterThanOrEqual(run?.finished ?? Number.POSITIVE_INFINITY);
    expect(result.terminationReason).toEqual({ type: 'external', via: 'signal', reason: 'enough' });
    // The tool was not cancelled: its own result is in the transcript, and the terminate stopped what came next.
    expect(toolMessages(result.messages)).toEqual([{ id: 'call-1-1', content: 'waited' }]);
    expect(result.response).not.toBe('too late');
  });
});
