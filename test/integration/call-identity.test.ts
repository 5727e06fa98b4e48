import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { approveSignal, decideUpdate, denySignal, eventsQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type AssistantMessage } from '../../src/shared/messages';
import { defineTool } from '../../src/tools/define-tool';
import { TestEnv } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';

/**
 * The runner owns each tool call's identity. These models reuse ids the way
 * real OpenAI-compatible servers do (`call_0` on every turn, or twice in one
 * answer); approvals, decisions, results and idempotency keys must still
 * belong to exactly one call each.
 */
const keysSeen: string[] = [];
const recordKey = defineTool({
  name: 'record_key',
  description: 'Records the idempotency key it is called with.',
  parameters: z.object({ label: z.string() }),
  execute: ({ label }, { idempotencyKey }) => {
    keysSeen.push(idempotencyKey);
    return `recorded ${label}`;
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [recordKey] });
});
afterAll(async () => {
  await env.close();
});

const write = (file: string, id = 'call_0') => ({ name: 'write_file', arguments: { path: file, content: file }, id });

async function exists(file: string): Promise<boolean> {
  return readFile(path.join(env.workspace, file), 'utf8').then(
    () => true,
    () => false,
  );
}

/** Two turns, each writing one file as `call_0`, under approval of write_file. */
async function startTwoTurns(first: string, second: string) {
  const model = env.scenario([{ toolCalls: [write(first)] }, { toolCalls: [write(second)] }, { content: 'done' }]);
  const handle = await env.start({
    model,
    tools: ['write_file'],
    message: 'write both',
    approval: { tools: ['write_file'] },
  });
  return { model, handle };
}

async function pendingCall(handle: Awaited<ReturnType<typeof startTwoTurns>>['handle'], iteration: number) {
  const state = await waitForState(
    handle,
    (current) => current.pendingApprovals.length === 1 && current.iteration === iteration,
  );
  return state.pendingApprovals[0]!;
}

describe('a model that reuses call ids', () => {
  test("an approval on turn 1 does not approve turn 2's call with the same model id: it waits for its own decision", async () => {
    const { handle } = await startTwoTurns('turn1-a.txt', 'turn2-b.txt');
    const first = await pendingCall(handle, 1);
    expect(first.callId).toBe('call-1-1');
    await handle.signal(approveSignal, { callId: first.callId });

    const second = await pendingCall(handle, 2);
    expect(second).toMatchObject({ callId: 'call-2-1', arguments: { path: 'turn2-b.txt' } });
    // Held for its own decision: nothing written yet, still waiting a while later.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await exists('turn2-b.txt')).toBe(false);
    expect((await waitForState(handle, () => true)).pendingApprovals.map((approval) => approval.callId)).toEqual([
      'call-2-1',
    ]);

    await handle.signal(approveSignal, { callId: second.callId });
    expect(((await handle.result()) as AgentResult).response).toBe('done');
    expect(await exists('turn2-b.txt')).toBe(true);
  });

  test('arguments replaced on turn 1 apply to that call only; turn 2 runs with its own', async () => {
    const { handle } = await startTwoTurns('turn1-orig.txt', 'turn2-own.txt');
    const first = await pendingCall(handle, 1);
    await handle.executeUpdate(decideUpdate, {
      args: [
        { callId: first.callId, decision: 'approve', arguments: { path: 'turn1-replaced.txt', content: 'replaced' } },
      ],
    });
    const second = await pendingCall(handle, 2);
    await handle.executeUpdate(decideUpdate, { args: [{ callId: second.callId, decision: 'approve' }] });
    await handle.result();

    expect(await readFile(path.join(env.workspace, 'turn1-replaced.txt'), 'utf8')).toBe('replaced');
    expect(await readFile(path.join(env.workspace, 'turn2-own.txt'), 'utf8')).toBe('turn2-own.txt');
  });

  test('a denial on turn 1 is not applied to turn 2', async () => {
    const { handle } = await startTwoTurns('turn1-denied.txt', 'turn2-allowed.txt');
    const first = await pendingCall(handle, 1);
    await handle.signal(denySignal, { callId: first.callId, reason: 'not this one' });
    const second = await pendingCall(handle, 2);
    await handle.signal(approveSignal, { callId: second.callId });
    const result = (await handle.result()) as AgentResult;

    expect(result.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      'Denied: not this one',
      'Wrote 17 bytes to turn2-allowed.txt.',
    ]);
    expect(await exists('turn1-denied.txt')).toBe(false);
  });

  test('two calls with one id in one answer: each needs its own approval, both results reach the model under distinct ids', async () => {
    const model = env.scenario([{ toolCalls: [write('dup-one.txt'), write('dup-two.txt')] }, { content: 'done' }]);
    const handle = await env.start({
      model,
      tools: ['write_file'],
      message: 'write two',
      approval: { tools: ['write_file'] },
    });
    const waiting = await waitForState(handle, (state) => state.pendingApprovals.length === 2);
    expect(waiting.pendingApprovals.map((approval) => [approval.callId, approval.arguments])).toEqual([
      ['call-1-1', { path: 'dup-one.txt', content: 'dup-one.txt' }],
      ['call-1-2', { path: 'dup-two.txt', content: 'dup-two.txt' }],
    ]);
    await handle.signal(approveSignal, { callId: 'call-1-1' });
    await waitForState(handle, (state) => state.pendingApprovals.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await exists('dup-one.txt')).toBe(true);
    expect(await exists('dup-two.txt')).toBe(false);
    await handle.signal(approveSignal, { callId: 'call-1-2' });
    const result = (await handle.result()) as AgentResult;

    expect(await exists('dup-two.txt')).toBe(true);
    const tools = result.messages.filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.tool_call_id)).toEqual(['call-1-1', 'call-1-2']);
    // What the model is shown: its own id for the first, a distinct one for the reuse, each result under its call.
    const shown = env.model.requests(model)[1]!.messages;
    const assistant = shown.find((message) => message.role === 'assistant') as AssistantMessage;
    expect(assistant.tool_calls?.map((call) => call.id)).toEqual(['call_0', 'call-1-2']);
    expect(
      shown.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id, message.content]),
    ).toEqual([
      ['call_0', 'Wrote 11 bytes to dup-one.txt.'],
      ['call-1-2', 'Wrote 11 bytes to dup-two.txt.'],
    ]);
    // The run's transcript keeps the model's ids beside its own.
    expect((result.messages[1] as AssistantMessage).meta?.modelCallIds).toEqual({
      'call-1-1': 'call_0',
      'call-1-2': 'call_0',
    });
  });

  test('distinct calls with one model id get distinct idempotency keys; events name runner ids', async () => {
    const call = (label: string) => ({ name: 'record_key', arguments: { label }, id: 'call_0' });
    const model = env.scenario([
      { toolCalls: [call('a'), call('b')] },
      { toolCalls: [call('c')] },
      { content: 'done' },
    ]);
    const handle = await env.start({ model, tools: ['record_key'], message: 'record', parallelToolCalls: false });
    await handle.result();

    const prefix = `${handle.workflowId}:${(await handle.describe()).runId}`;
    const ours = keysSeen.filter((key) => key.startsWith(`${handle.workflowId}:`));
    expect(ours).toEqual([`${prefix}:call-1-1`, `${prefix}:call-1-2`, `${prefix}:call-2-1`]);
    const { events } = await waitFor(
      () => handle.query(eventsQuery, {}),
      (page) => page.events.length > 0,
    );
    expect(events.filter((event) => event.type === 'tool-call-end').map((event) => event.callId)).toEqual([
      'call-1-1',
      'call-1-2',
      'call-2-1',
    ]);
  });
});
