import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { approveSignal, eventsQuery, setLimitsUpdate, terminateSignal } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type ChatMessage } from '../../src/shared/messages';
import { defineTool } from '../../src/tools/define-tool';
import { CANCELLED_RESULT } from '../../src/workflows/rules/transcript';
import { scheduledActivities } from '../helpers/history';
import { TestEnv } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';

/** Observations of the slow tool: when it started and whether its signal fired. */
const slowRuns: { started: number; abortedAt?: number }[] = [];
const executed: string[] = [];
const slowTool = defineTool({
  name: 'slow_step',
  description: 'Takes ten seconds unless cancelled.',
  parameters: z.object({}),
  execute: async (_args, { signal }) => {
    const record: { started: number; abortedAt?: number } = { started: Date.now() };
    slowRuns.push(record);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, 10_000);
      signal.addEventListener('abort', () => {
        record.abortedAt = Date.now();
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    });
    return 'slow step finished';
  },
});
const recordTool = defineTool({
  name: 'record',
  description: 'Records that it ran.',
  parameters: z.object({ label: z.string() }),
  execute: ({ label }) => {
    executed.push(label);
    return `recorded ${label}`;
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [slowTool, recordTool] });
});
afterAll(async () => {
  await env.close();
});

/** Every assistant tool call has exactly one tool message after it: a transcript a provider accepts. */
function expectValidTranscript(messages: ChatMessage[]): void {
  const answered = messages.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : []));
  const asked = messages.flatMap((message) =>
    message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [],
  );
  expect(answered.sort()).toEqual(asked.sort());
}

describe('terminate signal', () => {
  test('during a slow model call: the run returns at once with external, usage so far, and a valid transcript', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'record', arguments: { label: 'first' } }] },
      { content: 'too late', delayMs: 8_000 },
    ]);
    const handle = await env.start({ model, tools: ['record'], message: 'go' });
    await waitForState(handle, (state) => state.iteration === 2);
    const signalledAt = Date.now();
    await handle.signal(terminateSignal, { reason: 'operator stop' });
    const result = (await handle.result()) as AgentResult;

    // Well under the 8 s the model call would take, with room for a loaded machine.
    expect(Date.now() - signalledAt).toBeLessThan(6_000);
    expect(result.terminationReason).toEqual({ type: 'external', via: 'signal', reason: 'operator stop' });
    expect(result.usage.totalTokens).toBeGreaterThan(0);
    expect(result.invocations).toBe(1);
    expectValidTranscript(result.messages);
    const state = await waitForState(handle, () => true);
    expect(state.status).toBe('terminated');
    expect((await handle.describe()).searchAttributes.AgentTerminationReason).toEqual(['external']);
  });

  test('during a slow tool: the tool is cancelled, later calls never run, every call gets a result', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'slow_step', arguments: {}, id: 'call_slow' },
          { name: 'record', arguments: { label: 'after-slow' }, id: 'call_after' },
        ],
      },
    ]);
    const before = slowRuns.length;
    const handle = await env.start({ model, tools: ['slow_step', 'record'], message: 'go', parallelToolCalls: false });
    await waitFor(
      async () => slowRuns.length,
      (count) => count > before,
    );
    const signalledAt = Date.now();
    await handle.signal(terminateSignal, {});
    const result = (await handle.result()) as AgentResult;

    expect(result.terminationReason).toEqual({ type: 'external', via: 'signal' });
    expect(result.messages.filter((message) => message.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call-1-1', content: CANCELLED_RESULT, meta: { iteration: 1 } },
      { role: 'tool', tool_call_id: 'call-1-2', content: CANCELLED_RESULT, meta: { iteration: 1 } },
    ]);
    expectValidTranscript(result.messages);
    // The in-flight tool heard the cancellation through its signal, within seconds.
    const slow = await waitFor(
      async () => slowRuns[before],
      (run) => run?.abortedAt !== undefined,
      10_000,
    );
    expect((slow?.abortedAt ?? 0) - signalledAt).toBeLessThan(8_000);
    // Nothing after it was scheduled or run.
    expect(executed).not.toContain('after-slow');
    const tools = (await scheduledActivities(env.client, handle.workflowId)).filter(
      (activity) => activity.type === 'executeTool',
    );
    expect(tools).toHaveLength(1);
  });

  test('while waiting for approval: the pending call is answered as cancelled', async () => {
    const model = env.scenario([{ toolCalls: [{ name: 'record', arguments: { label: 'gated' }, id: 'call_gated' }] }]);
    const handle = await env.start({ model, tools: ['record'], message: 'go', approval: { tools: 'all' } });
    await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    await handle.signal(terminateSignal, { reason: 'nobody is around' });
    const result = (await handle.result()) as AgentResult;
    expect(result.terminationReason).toMatchObject({ type: 'external', reason: 'nobody is around' });
    expect(result.messages.at(-1)).toMatchObject({ tool_call_id: 'call-1-1', content: CANCELLED_RESULT });
    expect(executed).not.toContain('gated');
    expect((await waitForState(handle, () => true)).pendingApprovals).toEqual([]);
    // A late approval changes nothing.
    await expect(handle.signal(approveSignal, { callId: 'call-1-1' })).rejects.toThrow();
  });

  test("Temporal's own cancel request ends the run the same way", async () => {
    const model = env.scenario([{ content: 'never', delayMs: 8_000 }]);
    const handle = await env.start({ model, tools: [], message: 'go' });
    await waitForState(handle, (state) => state.iteration === 1);
    await handle.cancel();
    const result = (await handle.result()) as AgentResult;
    expect(result.terminationReason).toEqual({ type: 'external', via: 'cancel' });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });
});

describe('setLimits update', () => {
  const busy = (label: string) => ({ toolCalls: [{ name: 'record', arguments: { label } }], delayMs: 400 });

  test('raising maxInvocations lets a run go on past its original cap', async () => {
    // The first call is held for 5 s, so the update lands long before the original cap is reached.
    const model = env.scenario([{ ...busy('l1'), delayMs: 5_000 }, busy('l2'), busy('l3'), { content: 'finished' }]);
    const handle = await env.start({ model, tools: ['record'], message: 'go', maxInvocations: 2 });
    const limits = await handle.executeUpdate(setLimitsUpdate, { args: [{ maxInvocations: 5 }] });
    expect(limits).toEqual({ maxInvocations: 5, tokenBudget: {} });
    const result = (await handle.result()) as AgentResult;
    expect(result).toMatchObject({ response: 'finished', invocations: 4 });
    const { events } = await handle.query(eventsQuery, {});
    expect(events.find((event) => event.type === 'limits-change')).toMatchObject({
      before: { maxInvocations: 2 },
      after: { maxInvocations: 5 },
    });
  });

  test("a setLimits update delivered with the start changes the input's limits instead of being overwritten by them", async () => {
    const model = env.scenario([busy('s1'), busy('s2'), busy('s3'), { content: 'finished' }]);
    // Update-with-start: the update reaches the workflow in its very first activation.
    const start = new WithStartWorkflowOperation(WORKFLOW_TYPE, {
      workflowId: `limits-at-start-${Date.now()}`,
      taskQueue: env.taskQueue,
      args: [{ model, tools: ['record'], message: 'go', maxInvocations: 2 }],
      workflowIdConflictPolicy: 'FAIL',
    });
    const limits = await env.client.workflow.executeUpdateWithStart(setLimitsUpdate, {
      args: [{ maxInvocations: 5 }],
      startWorkflowOperation: start,
    });
    expect(limits).toEqual({ maxInvocations: 5, tokenBudget: {} });
    const handle = await start.workflowHandle();
    expect(await handle.result()).toMatchObject({ response: 'finished', invocations: 4 });
    const { events } = await handle.query(eventsQuery, {});
    expect(events.find((event) => event.type === 'limits-change')).toMatchObject({
      before: { maxInvocations: 2 },
      after: { maxInvocations: 5 },
    });
  });

  test('lowering it to the calls already made stops the run before its next call; below that is rejected', async () => {
    // The third call takes ten seconds: the limits change while it is in flight.
    const model = env.scenario([busy('a'), busy('b'), { ...busy('c'), delayMs: 10_000 }, busy('d')]);
    const handle = await env.start({ model, tools: ['record'], message: 'go' });
    await waitForState(handle, (current) => current.iteration === 3);
    const rejected = await handle
      .executeUpdate(setLimitsUpdate, { args: [{ maxInvocations: 1 }] })
      .catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((rejected as WorkflowUpdateFailedError).cause?.message).toBe(
      'maxInvocations 1 is below the 2 model calls already made; give at least 2 (which stops the run before its next call).',
    );

    await handle.executeUpdate(setLimitsUpdate, { args: [{ maxInvocations: 3 }] });
    const failure = (await handle.result().catch((error: unknown) => error)) as Error & { cause?: { type?: string } };
    expect(failure.cause?.type).toBe('MaxInvocationsExceeded');
    expect(env.model.requests(model)).toHaveLength(3);
  });

  test('a token budget set while running fails the run with TokenBudgetExhausted before the next call', async () => {
    // The second call is held for 5 s: the budget is set while it is in flight.
    const model = env.scenario([busy('t1'), { ...busy('t2'), delayMs: 5_000 }, busy('t3')]);
    const handle = await env.start({ model, tools: ['record'], message: 'go' });
    await waitForState(handle, (state) => state.invocations >= 1);
    await handle.executeUpdate(setLimitsUpdate, { args: [{ tokenBudget: { maxTotal: 1 } }] });
    const failure = (await handle.result().catch((error: unknown) => error)) as Error & {
      cause?: { type?: string; message: string };
    };
    expect(failure.cause?.type).toBe('TokenBudgetExhausted');
    expect(failure.cause?.message).toMatch(/^Token budget exhausted: \d+ total tokens used, budget 1$/);
  });

  test('a malformed change is rejected and changes nothing', async () => {
    // The run is still in its first call when the update arrives.
    const model = env.scenario([{ ...busy('m1'), delayMs: 5_000 }, { content: 'ok' }]);
    const handle = await env.start({ model, tools: ['record'], message: 'go', maxInvocations: 7 });
    const rejected = await handle
      .executeUpdate(setLimitsUpdate, { args: [{} as never] })
      .catch((error: unknown) => error);
    expect((rejected as WorkflowUpdateFailedError).cause?.message).toBe(
      'input: give maxInvocations, tokenBudget or both',
    );
    await handle.result();
    expect((await waitForState(handle, () => true)).limits).toEqual({ maxInvocations: 7, tokenBudget: {} });
  });
});

describe('event log', () => {
  test('a cursor reads the log in pages without repeating', async () => {
    const model = env.scenario([{ toolCalls: [{ name: 'record', arguments: { label: 'e' } }] }, { content: 'done' }]);
    const handle = await env.start({ model, tools: ['record'], message: 'go' });
    await handle.result();
    const first = await handle.query(eventsQuery, { after: 0, limit: 3 });
    const rest = await handle.query(eventsQuery, { after: first.nextCursor });
    const all = [...first.events, ...rest.events];
    expect(all.map((event) => event.seq)).toEqual(all.map((_, index) => index + 1));
    expect(all.map((event) => event.type)).toEqual([
      'run-start',
      'iteration-start',
      'model-response',
      'tool-call-start',
      'tool-call-end',
      'iteration-start',
      'model-response',
      'run-end',
    ]);
    expect((await handle.query(eventsQuery, { after: rest.nextCursor })).events).toEqual([]);
  });
});

describe("timeout: the run's wall-clock limit", () => {
  test('ends the run gracefully at the deadline, cancelling the tool in flight; nothing runs after it', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'record', arguments: { label: 'before-deadline' }, id: 'call_before' },
          { name: 'slow_step', arguments: {}, id: 'call_slow_deadline' },
          { name: 'record', arguments: { label: 'after-deadline' }, id: 'call_late' },
        ],
      },
      { content: 'never' },
    ]);
    const before = slowRuns.length;
    const started = Date.now();
    const result = await env.run({
      model,
      tools: ['record', 'slow_step'],
      message: 'go',
      parallelToolCalls: false,
      timeout: '2s',
    });

    expect(result.terminationReason).toEqual({ type: 'timeout', limit: '2s' });
    // Well under the 10 s slow_step would take.
    expect(Date.now() - started).toBeLessThan(9_000);
    expect(result.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      'recorded before-deadline',
      CANCELLED_RESULT,
      CANCELLED_RESULT,
    ]);
    expectValidTranscript(result.messages);
    expect(executed).toContain('before-deadline');
    expect(executed).not.toContain('after-deadline');
    const slow = await waitFor(
      async () => slowRuns[before],
      (run) => run?.abortedAt !== undefined,
      10_000,
    );
    expect(slow?.abortedAt).toBeDefined();
  });

  test('a run that finishes first is not affected', async () => {
    const result = await env.run({
      model: env.scenario([{ content: 'quick' }]),
      tools: [],
      message: 'go',
      timeout: '1h',
    });
    expect(result.terminationReason).toEqual({ type: 'complete' });
  });
});
