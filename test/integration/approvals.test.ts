import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import { approveSignal, decideUpdate, denySignal, eventsQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type AssistantMessage } from '../../src/shared/messages';
import { defineTool } from '../../src/tools/define-tool';
import { TestEnv } from '../helpers/test-env';
import { waitFor, waitForState } from '../helpers/wait';

const transfers: number[] = [];
const transferTool = defineTool({
  name: 'transfer',
  description: 'Transfer money.',
  parameters: z.object({ amount: z.number().positive() }),
  needsApproval: ({ amount }) => amount > 100,
  execute: ({ amount }) => {
    transfers.push(amount);
    return `transferred ${amount}`;
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ extraTools: [transferTool] });
});
afterAll(async () => {
  await env.close();
});

/** A run whose first answer asks to write `file`, then answers "done". */
async function startWriteRun(file: string, extra: Record<string, unknown> = {}, answerDelayMs = 0) {
  const model = env.scenario([
    { toolCalls: [{ name: 'write_file', arguments: { path: file, content: 'from the model' }, id: `call_${file}` }] },
    { content: 'done', delayMs: answerDelayMs },
  ]);
  const handle = await env.start({
    model,
    tools: ['write_file'],
    message: 'write it',
    approval: { tools: ['write_file'] },
    ...extra,
  });
  const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_approval');
  // The runner's id of the answer's first call, whatever id the model gave it.
  return { model, handle, waiting, callId: 'call-1-1' };
}

describe('approvals', () => {
  test('a call waits, is listed in state and by search attribute, and runs once approved by signal', async () => {
    const { handle, waiting, callId } = await startWriteRun('approved.txt');
    expect(waiting).toMatchObject({
      waitingFor: 'approval',
      pendingApprovals: [
        { callId, toolName: 'write_file', arguments: { path: 'approved.txt', content: 'from the model' } },
      ],
    });
    expect(waiting.pendingApprovals[0]?.requestedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const listed = await waitFor(
      async () => {
        const ids: string[] = [];
        for await (const execution of env.client.workflow.list({
          query: `AgentStatus='waiting_for_approval' AND WorkflowId='${handle.workflowId}'`,
        })) {
          ids.push(execution.workflowId);
        }
        return ids;
      },
      (ids) => ids.length === 1,
    );
    expect(listed).toEqual([handle.workflowId]);

    await handle.signal(approveSignal, { callId });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');
    expect(await readFile(path.join(env.workspace, 'approved.txt'), 'utf8')).toBe('from the model');

    const { events } = await handle.query(eventsQuery, { after: 0 });
    expect(events.find((event) => event.type === 'approval-decision')).toMatchObject({
      callId,
      toolName: 'write_file',
      decision: 'approve',
      arguments: { path: 'approved.txt', content: 'from the model' },
      via: 'signal',
    });
    const description = await handle.describe();
    expect(description.searchAttributes.AgentStatus).toEqual(['completed']);
    expect(description.searchAttributes.AgentPendingApprovals).toEqual([0]);
  });

  test('approve with modified arguments through the decide update: the tool runs with them, the transcript shows them', async () => {
    const { handle, callId } = await startWriteRun('modified.txt');
    const recorded = await handle.executeUpdate(decideUpdate, {
      args: [{ callId, decision: 'approve', arguments: { path: 'modified.txt', content: 'from the reviewer' } }],
    });
    expect(recorded).toMatchObject({
      callId,
      decision: 'approve',
      arguments: { path: 'modified.txt', content: 'from the reviewer' },
      originalArguments: { path: 'modified.txt', content: 'from the model' },
      via: 'update',
    });
    const result = (await handle.result()) as AgentResult;
    expect(await readFile(path.join(env.workspace, 'modified.txt'), 'utf8')).toBe('from the reviewer');
    const assistant = result.messages[1] as AssistantMessage;
    expect(JSON.parse(assistant.tool_calls?.[0]?.function.arguments ?? '{}')).toEqual({
      path: 'modified.txt',
      content: 'from the reviewer',
    });
  });

  test('deny by signal: the model hears "Denied: <reason>" and can change course', async () => {
    const { model, handle, callId } = await startWriteRun('denied.txt');
    await handle.signal(denySignal, { callId, reason: 'not in the release branch' });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');
    expect(result.messages[2]).toMatchObject({
      role: 'tool',
      tool_call_id: callId,
      content: 'Denied: not in the release branch',
    });
    // The model is answered under the id it gave the call.
    expect(env.model.requests(model)[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_denied.txt',
      content: 'Denied: not in the release branch',
    });
    await expect(readFile(path.join(env.workspace, 'denied.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  test('the decide update rejects unknown, malformed, schema-breaking and already-decided decisions with a clear message', async () => {
    // The answer after the decision takes 2 s: the run is still open when the second decision arrives (an update sent
    // as the run closes is aborted with the run, not answered).
    const { handle, callId } = await startWriteRun('validated.txt', {}, 2_000);
    const rejection = (args: unknown) =>
      handle.executeUpdate(decideUpdate, { args: [args as never] }).then(
        () => 'accepted',
        (error: unknown) =>
          error instanceof WorkflowUpdateFailedError ? (error.cause?.message ?? error.message) : String(error),
      );

    expect(await rejection({ callId: 'call_nope', decision: 'approve' })).toBe(
      `No call "call_nope" is waiting for approval. Waiting: ${callId} (write_file).`,
    );
    expect(await rejection({ callId, decision: 'maybe' })).toMatch(/^Malformed decision: decision: Invalid option/);
    expect(await rejection({ callId, decision: 'approve', arguments: { path: 7 } })).toMatch(
      /^Arguments for "write_file" do not fit its schema: path: Invalid input: expected string, received number; content: /,
    );
    // A signal with bad arguments is logged as rejected and changes nothing.
    await handle.signal(approveSignal, { callId, arguments: { path: 7 } });
    await waitFor(
      () => handle.query(eventsQuery, {}),
      (page) => page.events.some((event) => event.type === 'decision-rejection'),
    );
    expect((await waitForState(handle, () => true)).pendingApprovals).toHaveLength(1);

    expect(await rejection({ callId, decision: 'deny', reason: 'no' })).toBe('accepted');
    expect(await rejection({ callId, decision: 'approve' })).toMatch(
      new RegExp(`^Call "${callId}" was already decided: denied at .+ \\(via update\\)\\.$`),
    );
    await handle.result();
  });

  test('calls that need no approval run while another waits', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'calculator', arguments: { expression: '2+2' }, id: 'call_free' },
          { name: 'write_file', arguments: { path: 'gated.txt', content: 'x' }, id: 'call_gated' },
        ],
      },
      { content: 'done' },
    ]);
    const handle = await env.start({
      model,
      tools: ['calculator', 'write_file'],
      message: 'go',
      approval: { tools: ['write_file'] },
    });
    const page = await waitFor(
      () => handle.query(eventsQuery, {}),
      (events) => events.events.some((event) => event.type === 'tool-call-end' && event.callId === 'call-1-1'),
    );
    expect(page.events.some((event) => event.type === 'approval-request' && event.callId === 'call-1-2')).toBe(true);
    await handle.signal(approveSignal, { callId: 'call-1-2' });
    const result = (await handle.result()) as AgentResult;
    expect(result.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      '4',
      'Wrote 1 bytes to gated.txt.',
    ]);
  });

  test('needsApproval as a function of the arguments gates only the calls it picks', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'transfer', arguments: { amount: 50 }, id: 'call_small' },
          { name: 'transfer', arguments: { amount: 5000 }, id: 'call_large' },
        ],
      },
      { content: 'done' },
    ]);
    const handle = await env.start({ model, tools: ['transfer'], message: 'pay' });
    const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    expect(waiting.pendingApprovals.map((approval) => approval.callId)).toEqual(['call-1-2']);
    await handle.signal(denySignal, { callId: 'call-1-2', reason: 'too much' });
    await handle.result();
    expect(transfers).toContain(50);
    expect(transfers).not.toContain(5000);
  });

  test('a timeout with onTimeout "deny" denies on a durable timer', async () => {
    // Not startWriteRun: its wait for the waiting state could miss a two-second window on a loaded machine.
    const model = env.scenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'timed-out.txt', content: 'x' }, id: 'call_timed_out' }] },
      { content: 'done' },
    ]);
    const handle = await env.start({
      model,
      tools: ['write_file'],
      message: 'write it',
      approval: { tools: ['write_file'], timeout: '2s' },
    });
    const result = (await handle.result()) as AgentResult;
    expect(result.messages[2]).toMatchObject({ tool_call_id: 'call-1-1', content: 'Denied: no decision within 2s' });
    const { events } = await handle.query(eventsQuery, {});
    expect(events.find((event) => event.type === 'approval-decision')).toMatchObject({
      decision: 'deny',
      via: 'timeout',
    });
  });

  test('a timeout with onTimeout "fail" fails the run with ApprovalTimedOut', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'never.txt', content: 'x' }, id: 'call_late' }] },
    ]);
    const failure = await env.runExpectingFailure({
      model,
      tools: ['write_file'],
      message: 'go',
      approval: { tools: 'all', timeout: '1s', onTimeout: 'fail' },
    });
    expect(failure.type).toBe('ApprovalTimedOut');
    expect(failure.message).toBe('No decision on write_file (call-1-1) within 1s');
  });

  test('a worker restart while waiting loses nothing: the new worker picks the run up and the approval goes through', async () => {
    const { handle, callId } = await startWriteRun('after-restart.txt');
    await env.restartWorker();
    const state = await waitForState(handle, (current) => current.status === 'waiting_for_approval');
    expect(state.pendingApprovals.map((approval) => approval.callId)).toEqual([callId]);
    await handle.signal(approveSignal, { callId });
    expect(((await handle.result()) as AgentResult).response).toBe('done');
    expect(await readFile(path.join(env.workspace, 'after-restart.txt'), 'utf8')).toBe('from the model');
  });
});
