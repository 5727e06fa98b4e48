import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { addUsage, type Usage } from '../../src/shared/messages';
import {
  approveSignal,
  decideUpdate,
  eventsQuery,
  stateQuery,
  terminateSignal,
} from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type RunEvent } from '../../src/shared/run-events';
import { defineAgentTool } from '../../src/tools/define-agent-tool';
import { pingTool } from '../helpers/ping-tool';
import { runFailureOf } from '../helpers/promises';
import { TestEnv } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';

/** A nested agent with a plain tool; it runs on its caller's model (the scenario's script). */
const researcher = defineAgentTool({
  name: 'researcher',
  description: 'Researches a question.',
  instructions: 'You research.',
  tools: ['ping'],
});
/** A nested agent that ends its work through `finish` (a `TerminateResponse`): a stop message. */
const closer = defineAgentTool({
  name: 'closer',
  description: 'Closes a task.',
  instructions: 'Finish the task.',
  tools: ['finish'],
});
/** A nested agent that may call itself: each call one level deeper. */
const delegate = defineAgentTool({
  name: 'delegate',
  description: 'Hands the task down.',
  instructions: 'Delegate or answer.',
  tools: ['delegate'],
});
/** A nested agent whose pings wait for a person's approval. */
const guarded = defineAgentTool({
  name: 'guarded',
  description: 'Pings, with approval.',
  instructions: 'Ping.',
  tools: ['ping'],
  approvalTools: ['ping'],
});
/** A nested agent whose input names a tool the worker lacks: the child fails with `InvalidAgentInput`. */
const broken = defineAgentTool({
  name: 'broken',
  description: 'Never works.',
  instructions: 'x',
  tools: ['no_such_tool'],
});

/** A model the worker prices at a dollar a thousand tokens, for the cost budget over the tree. */
const PRICED_MODEL = 'nested-priced';

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({
    extraTools: [pingTool, researcher, closer, delegate, broken, guarded],
    prices: { [PRICED_MODEL]: { inputPerMTok: 1_000, outputPerMTok: 1_000 } },
  });
});
afterAll(async () => {
  await env.close();
});

const call = (name: string, task: string) => ({ toolCalls: [{ name, arguments: { task } }] });

async function events(workflowId: string): Promise<RunEvent[]> {
  return (await env.client.workflow.getHandle(workflowId).query(eventsQuery, { limit: 500 })).events;
}

/** The input a run was started with, from its first history event. */
async function startInput(workflowId: string): Promise<Record<string, unknown>> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!payload) throw new Error(`no input in the history of ${workflowId}`);
  return defaultPayloadConverter.fromPayload(payload);
}

/** The usage of a run's first model call, from its `model-response` event. */
async function firstCallUsage(workflowId: string): Promise<Usage | undefined> {
  const response = (await events(workflowId)).find((event) => event.type === 'model-response');
  return response?.type === 'model-response' ? response.usage : undefined;
}

async function childResult(workflowId: string): Promise<AgentResult> {
  return (await env.client.workflow.getHandle(workflowId).result()) as AgentResult;
}

describe('nested agents: an agent tool runs a child agentWorkflow', () => {
  test("the parent gets the child's response as the tool result; events name the child; usage spans the tree", async () => {
    const model = env.scenario([
      call('researcher', 'Is example.org up?'),
      { toolCalls: [{ name: 'ping', arguments: { host: 'example.org' } }] }, // the child
      { content: 'example.org answers pings.' }, // the child's answer
      { content: 'It is up.' }, // the parent again
    ]);
    const handle = await env.start({ model, tools: ['researcher'], message: 'check example.org' });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('It is up.');
    expect(result.messages.find((message) => message.role === 'tool')).toMatchObject({
      content: 'example.org answers pings.',
    });

    const childId = `${handle.workflowId}/call-1-1`;
    const child = await childResult(childId);
    expect(child.response).toBe('example.org answers pings.');
    expect(child.messages[0]).toEqual({ role: 'user', content: 'Is example.org up?' });

    const log = await events(handle.workflowId);
    const started = log.find((event) => event.type === 'nested-agent-start');
    const ended = log.find((event) => event.type === 'nested-agent-end');
    const childRunId = (await env.client.workflow.getHandle(childId).describe()).runId;
    expect(started).toMatchObject({
      toolName: 'researcher',
      callId: 'call-1-1',
      workflowId: childId,
      runId: childRunId,
      depth: 1,
    });
    expect(ended).toMatchObject({
      toolName: 'researcher',
      workflowId: childId,
      runId: childRunId,
      outcome: 'completed',
      terminationReason: 'complete',
      usage: child.usage,
    });

    expect(result.children).toEqual([{ runId: childRunId, toolName: 'researcher', usage: child.usage }]);
    expect(result.ownUsage?.totalTokens).toBeGreaterThan(0);
    expect(result.usage).toEqual(addUsage(result.ownUsage ?? child.usage, child.usage));
    // A child's parent is the run that called it: what the web UI's Relationships tab shows.
    expect((await env.client.workflow.getHandle(childId).describe()).parentExecution?.workflowId).toBe(
      handle.workflowId,
    );
  });

  test('a run that calls no agent tool reports its usage as before, with no ownUsage or children', async () => {
    const model = env.scenario([{ content: 'hello' }]);
    const result = await env.run({ model, tools: ['researcher'], message: 'hi' });
    expect(result.ownUsage).toBeUndefined();
    expect(result.children).toBeUndefined();
  });

  test('depth: a call that would reach maxDepth is refused with a MaxDepthExceeded tool error, not a crash', async () => {
    const model = env.scenario([
      call('delegate', 'level 1'), // the parent, depth 0
      call('delegate', 'level 2'), // the child, depth 1: its call would run at depth 2 = maxDepth
      { content: 'I did it myself.' }, // the child, after the refusal
      { content: 'Done.' }, // the parent
    ]);
    const handle = await env.start({ model, tools: ['delegate'], message: 'go', maxDepth: 2 });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('Done.');
    const child = await childResult(`${handle.workflowId}/call-1-1`);
    const refusal = child.messages.find((message) => message.role === 'tool');
    expect(refusal?.content).toMatch(
      /^Error: MaxDepthExceeded: the nested agent "delegate" would run at depth 2, and this tree allows depths below 2/,
    );
    // The refused call started nothing; the child inherited maxDepth and runs one level down.
    expect((await events(`${handle.workflowId}/call-1-1`)).some((event) => event.type === 'nested-agent-start')).toBe(
      false,
    );
    expect(await startInput(`${handle.workflowId}/call-1-1`)).toMatchObject({
      depth: 1,
      maxDepth: 2,
      model,
      tools: ['delegate'],
      message: 'level 1',
    });
  });

  test('a child that fails becomes a tool error naming its failure type; the parent goes on', async () => {
    const model = env.scenario([call('broken', 'try'), { content: 'It failed, sorry.' }]);
    const handle = await env.start({ model, tools: ['broken'], message: 'go' });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('It failed, sorry.');
    const toolMessage = result.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/^Error: the nested agent "broken" failed \(InvalidAgentInput\): /);
    expect((await events(handle.workflowId)).find((event) => event.type === 'nested-agent-end')).toMatchObject({
      outcome: 'failed',
      error: { type: 'InvalidAgentInput' },
    });
  });

  test("a bad task argument is the model's mistake: a tool error, no child", async () => {
    const model = env.scenario([{ toolCalls: [{ name: 'researcher', arguments: { topic: 'x' } }] }, { content: 'ok' }]);
    const handle = await env.start({ model, tools: ['researcher'], message: 'go' });
    const result = (await handle.result()) as AgentResult;
    expect(result.messages.find((message) => message.role === 'tool')?.content).toBe(
      'Error: the nested agent "researcher" needs {"task": "..."}: "task" must be a non-empty text saying what the agent should do',
    );
    expect(result.children).toBeUndefined();
  });

  test("the children's tokens count against the parent's tokenBudget", async () => {
    const model = env.scenario([
      call('researcher', 'write a lot'),
      { content: 'x'.repeat(8_000) }, // the child: about 2,000 completion tokens
      { content: 'never asked' },
    ]);
    const handle = await env.start({ model, tools: ['researcher'], message: 'go', tokenBudget: { maxTotal: 1_500 } });
    const failure = await runFailureOf(handle.result());
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe('TokenBudgetExhausted');
    expect(env.model.requests(model)).toHaveLength(2);
    // The child was given what was left of the budget as its own, and spent past it in its one answer.
    const childId = `${handle.workflowId}/call-1-1`;
    const child = await childResult(childId);
    expect(child.usage.totalTokens).toBeGreaterThan(1_500);
    const parentSpent = (await firstCallUsage(handle.workflowId))?.totalTokens ?? NaN;
    expect(await startInput(childId)).toMatchObject({ tokenBudget: { maxTotal: 1_500 - parentSpent } });
  });

  test("the children's cost counts against the parent's costBudget; a child runs under what is left", async () => {
    env.model.script(PRICED_MODEL, [
      call('researcher', 'write a lot'),
      { content: 'x'.repeat(8_000) }, // the child: about 2,000 completion tokens, about $2
      { content: 'never asked' },
    ]);
    const handle = await env.start({
      model: PRICED_MODEL,
      tools: ['researcher'],
      message: 'go',
      costBudget: { maxUsd: 1.5 },
    });
    const failure = await runFailureOf(handle.result());
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe('CostBudgetExceeded');
    expect(env.model.requests(PRICED_MODEL)).toHaveLength(2);
    const childId = `${handle.workflowId}/call-1-1`;
    const child = await childResult(childId);
    expect(child.usage.costUsd).toBeGreaterThan(1.5);
    const parentSpent = (await firstCallUsage(handle.workflowId))?.costUsd ?? NaN;
    expect(parentSpent).toBeGreaterThan(0);
    const childBudget = (await startInput(childId)).costBudget as { maxUsd: number };
    expect(childBudget.maxUsd).toBeCloseTo(1.5 - parentSpent, 9);
  });

  test("a child gets what is left of the parent's timeout as its own", async () => {
    const model = env.scenario([call('researcher', 'quick'), { content: 'quick answer' }, { content: 'ok' }]);
    const handle = await env.start({ model, tools: ['researcher'], message: 'go', timeout: '1 hour' });
    await handle.result();
    const timeout = (await startInput(`${handle.workflowId}/call-1-1`)).timeout;
    expect(typeof timeout).toBe('number');
    expect(timeout).toBeLessThanOrEqual(3_600_000);
    expect(timeout).toBeGreaterThan(3_500_000);
  });

  test('stopWhen sourceMatch: the run stops after the named nested agent answers', async () => {
    const model = env.scenario([call('researcher', 'look'), { content: 'found it' }, { content: 'never asked' }]);
    const result = await env.run({
      model,
      tools: ['researcher', 'closer'],
      message: 'go',
      stopWhen: { sourceMatch: ['researcher'] },
    });
    expect(result.terminationReason).toEqual({
      type: 'stop_condition',
      condition: 'sourceMatch("researcher")',
      detail: 'nested agent "researcher" answered this turn',
    });
    expect(env.model.requests(model)).toHaveLength(2);
  });

  test('stopWhen stopMessage: holds when a nested agent ended through a terminating tool, not when it just answered', async () => {
    const model = env.scenario([
      call('researcher', 'look'),
      { content: 'plain answer' }, // the researcher ends with text: no stop message
      call('closer', 'close it'),
      { toolCalls: [{ name: 'finish', arguments: { note: 'closed' } }] }, // the closer ends through finish
      { content: 'never asked' },
    ]);
    const result = await env.run({
      model,
      tools: ['researcher', 'closer'],
      message: 'go',
      stopWhen: { stopMessage: true },
    });
    expect(result.terminationReason).toEqual({
      type: 'stop_condition',
      condition: 'stopMessage()',
      detail: 'nested agent "closer" ended its work with a stop message this turn',
    });
    expect(env.model.requests(model)).toHaveLength(4);
  });

  test("terminating the parent stops the child gracefully; the parent's tool result says it was cancelled", async () => {
    const model = env.scenario([call('researcher', 'take your time'), { content: 'too late', delayMs: 20_000 }]);
    const handle = await env.start({ model, tools: ['researcher'], message: 'go' });
    const childId = `${handle.workflowId}/call-1-1`;
    await waitFor(
      () =>
        env.client.workflow
          .getHandle(childId)
          .describe()
          .then(() => waitForState(env.client.workflow.getHandle(childId), (state) => state.iteration === 1)),
      () => true,
    );
    await handle.signal(terminateSignal, { reason: 'enough' });
    const result = (await handle.result()) as AgentResult;
    expect(result.terminationReason).toEqual({ type: 'external', via: 'signal', reason: 'enough' });
    const child = await childResult(childId);
    expect(child.terminationReason).toEqual({ type: 'external', via: 'cancel' });
    expect(result.messages.find((message) => message.role === 'tool')?.content).toMatch(
      /^Cancelled: the nested agent "researcher" was stopped before it finished/,
    );
    expect(result.children).toEqual([expect.objectContaining({ toolName: 'researcher' })]);
  });

  test('cancelling the parent in Temporal cancels the child too, and both end gracefully', async () => {
    const model = env.scenario([call('researcher', 'take your time'), { content: 'too late', delayMs: 20_000 }]);
    const handle = await env.start({ model, tools: ['researcher'], message: 'go' });
    const childId = `${handle.workflowId}/call-1-1`;
    await waitFor(
      () =>
        env.client.workflow
          .getHandle(childId)
          .describe()
          .then(() => waitForState(env.client.workflow.getHandle(childId), (state) => state.iteration === 1)),
      () => true,
    );
    await handle.cancel();
    const result = (await handle.result()) as AgentResult;
    expect(result.terminationReason).toEqual({ type: 'external', via: 'cancel' });
    expect((await childResult(childId)).terminationReason).toEqual({ type: 'external', via: 'cancel' });
    expect(result.messages.find((message) => message.role === 'tool')?.content).toMatch(/^Cancelled/);
  });

  test('a parent terminated in Temporal (no chance to clean up) leaves no child running: the child is asked to cancel', async () => {
    const model = env.scenario([call('researcher', 'take your time'), { content: 'too late', delayMs: 20_000 }]);
    const handle = await env.start({ model, tools: ['researcher'], message: 'go' });
    const childId = `${handle.workflowId}/call-1-1`;
    await waitFor(
      () =>
        env.client.workflow
          .getHandle(childId)
          .describe()
          .then(() => waitForState(env.client.workflow.getHandle(childId), (state) => state.iteration === 1)),
      () => true,
    );
    await handle.terminate('operator');
    expect((await childResult(childId)).terminationReason).toEqual({ type: 'external', via: 'cancel' });
  });

  test("a child's pending approval is listed in the parent's state, naming the child's run, and an approval sent to the parent reaches it", async () => {
    const model = env.scenario([
      call('guarded', 'ping a'),
      { toolCalls: [{ name: 'ping', arguments: { host: 'a' } }] }, // the child: waits for approval
      { content: 'a answered' }, // the child, after the approved ping
      { content: 'all good' }, // the parent
    ]);
    const handle = await env.start({ model, tools: ['guarded'], message: 'go' });
    const childId = `${handle.workflowId}/call-1-1`;
    const state = await waitForState(handle, (current) => current.pendingApprovals.length === 1);
    expect(state.pendingApprovals[0]).toMatchObject({
      callId: 'call-1-1/call-1-1',
      toolName: 'ping',
      arguments: { host: 'a' },
      run: { workflowId: childId, toolName: 'guarded' },
    });
    expect(state.waitingFor).toBe('approval');
    await handle.signal(approveSignal, { callId: 'call-1-1/call-1-1' });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('all good');
    const child = await childResult(childId);
    expect(child.messages.find((message) => message.role === 'tool')?.content).toBe('pong a');
    expect((await events(childId)).find((event) => event.type === 'approval-decision')).toMatchObject({
      callId: 'call-1-1',
      decision: 'approve',
      via: 'signal',
    });
    expect((await events(handle.workflowId)).find((event) => event.type === 'nested-approval-forward')).toMatchObject({
      callId: 'call-1-1/call-1-1',
      workflowId: childId,
      decision: 'approve',
    });
    expect((await handle.query(stateQuery)).pendingApprovals).toEqual([]);
  });

  test('the decide update on the parent denies a call its child waits on; the child hears the reason', async () => {
    const model = env.scenario([
      call('guarded', 'ping b'),
      { toolCalls: [{ name: 'ping', arguments: { host: 'b' } }] },
      { content: 'b was refused' },
      { content: 'refused, then' },
    ]);
    const handle = await env.start({ model, tools: ['guarded'], message: 'go' });
    await waitForState(handle, (current) => current.pendingApprovals.length === 1);
    const decision = await handle.executeUpdate(decideUpdate, {
      args: [{ callId: 'call-1-1/call-1-1', decision: 'deny', reason: 'not b', by: { name: 'lead', via: 'client' } }],
    });
    expect(decision).toMatchObject({
      callId: 'call-1-1/call-1-1',
      toolName: 'ping',
      decision: 'deny',
      reason: 'not b',
      via: 'update',
      by: { name: 'lead', via: 'client' },
    });
    await handle.result();
    // Who decided travels with the forwarded decision: the child's record names the same decider.
    expect(
      (await events(`${handle.workflowId}/call-1-1`)).find((event) => event.type === 'approval-decision'),
    ).toMatchObject({
      decision: 'deny',
      by: { name: 'lead', via: 'client' },
    });
    const child = await childResult(`${handle.workflowId}/call-1-1`);
    expect(child.messages.find((message) => message.role === 'tool')?.content).toBe('Denied: not b');
  });

  test("a hand-over (continue-as-new) carries the children's usage: the result still counts and lists them", async () => {
    const model = env.scenario([call('researcher', 'look'), { content: 'found' }, { content: 'summed up' }]);
    const handle = await env.start({ model, tools: ['researcher'], message: 'go', iterationsPerRun: 1 });
    const result = (await handle.result()) as AgentResult;
    expect((await events(handle.workflowId)).some((event) => event.type === 'run-take-over')).toBe(true);
    const child = await childResult(`${handle.workflowId}/call-1-1`);
    expect(result.children).toEqual([expect.objectContaining({ toolName: 'researcher', usage: child.usage })]);
    expect(result.usage).toEqual(addUsage(result.ownUsage ?? child.usage, child.usage));
  });
});
