import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { decideUpdate, eventsQuery } from '../../src/workflow-contract/definitions';
import { FailureType } from '../../src/shared/failure-catalogue';
import { type AgentResult } from '../../src/shared/agent-result';
import { type AssistantMessage } from '../../src/shared/messages';
import { type RunEvent } from '../../src/shared/run-events';
import { defineTool } from '../../src/tools/define-tool';
import { TestEnv } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';

/** Amounts the tool actually moved, by recipient: what ran, with which arguments. */
const transfers: { amount: number; to: string }[] = [];
const transferTool = defineTool({
  name: 'transfer',
  description: 'Transfer money.',
  parameters: z.object({ amount: z.number().positive(), to: z.string() }),
  execute: ({ amount, to }) => {
    transfers.push({ amount, to });
    return `transferred ${amount} to ${to}`;
  },
});

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({
    extraTools: [transferTool],
    workflowsPath: path.join(__dirname, '..', 'fixtures', 'workflows-with-approval-policies.ts'),
  });
});
afterAll(async () => {
  await env.close();
});

const LIMITS = { policy: 'transfer-limits', params: { approveUpTo: 100, denyAbove: 1000 } };

/** A run whose model asks for one transfer to `to`, then answers "done". */
async function startTransfer(to: string, amount: number, approval: Record<string, unknown>) {
  const model = env.scenario([
    { toolCalls: [{ name: 'transfer', arguments: { amount, to }, id: `model_${to}` }] },
    { content: 'done' },
  ]);
  const handle = await env.start({ model, tools: ['transfer'], message: `pay ${to}`, approval });
  return { model, handle, callId: 'call-1-1' };
}

/** The run's `approval-decision` events. */
async function decisionsOf(handle: WorkflowHandle) {
  const { events } = await handle.query(eventsQuery, { after: 0 });
  return events.filter(
    (event): event is Extract<RunEvent, { type: 'approval-decision' }> => event.type === 'approval-decision',
  );
}

describe('approval policies: a function in workflow code decides each call', () => {
  test("approve: the call runs without waiting, and the decision is recorded as the policy's", async () => {
    const { handle, callId } = await startTransfer('approve-me', 40, LIMITS);
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');
    expect(transfers).toContainEqual({ amount: 40, to: 'approve-me' });
    expect(result.messages[2]).toMatchObject({
      role: 'tool',
      tool_call_id: callId,
      content: 'transferred 40 to approve-me',
    });

    const { events } = await handle.query(eventsQuery, { after: 0 });
    // Nobody was asked: no request was logged.
    expect(events.some((event) => event.type === 'approval-request')).toBe(false);
    expect(await decisionsOf(handle)).toEqual([
      expect.objectContaining({
        callId,
        toolName: 'transfer',
        decision: 'approve',
        arguments: { amount: 40, to: 'approve-me' },
        reason: 'at most 100',
        via: 'policy',
        policy: 'transfer-limits',
        // Who decided: the policy, by name.
        by: { name: 'transfer-limits', via: 'policy' },
      }),
    ]);
    const decision = (await decisionsOf(handle))[0];
    expect(decision).not.toHaveProperty('originalArguments');
  });

  test('deny: the tool does not run and the model hears "Denied: <reason>", as after a human denial', async () => {
    const { model, handle, callId } = await startTransfer('deny-me', 5000, LIMITS);
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');
    expect(transfers.some((transfer) => transfer.to === 'deny-me')).toBe(false);
    expect(result.messages[2]).toMatchObject({
      role: 'tool',
      tool_call_id: callId,
      content: 'Denied: transfers above 1000 are not allowed',
    });
    expect(env.model.requests(model)[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'model_deny-me',
      content: 'Denied: transfers above 1000 are not allowed',
    });
    expect(await decisionsOf(handle)).toEqual([
      expect.objectContaining({
        callId,
        decision: 'deny',
        reason: 'transfers above 1000 are not allowed',
        via: 'policy',
        policy: 'transfer-limits',
      }),
    ]);
  });

  test("modify: the tool runs with the policy's arguments, and the transcript shows them", async () => {
    const { handle, callId } = await startTransfer('cap-me', 700, { policy: 'cap-transfers', params: { cap: 250 } });
    const result = (await handle.result()) as AgentResult;
    expect(transfers).toContainEqual({ amount: 250, to: 'cap-me' });
    expect(transfers).not.toContainEqual({ amount: 700, to: 'cap-me' });
    const assistant = result.messages[1] as AssistantMessage;
    expect(JSON.parse(assistant.tool_calls?.[0]?.function.arguments ?? '{}')).toEqual({ amount: 250, to: 'cap-me' });
    expect(await decisionsOf(handle)).toEqual([
      expect.objectContaining({
        callId,
        decision: 'approve',
        arguments: { amount: 250, to: 'cap-me' },
        originalArguments: { amount: 700, to: 'cap-me' },
        reason: 'capped at 250',
        via: 'policy',
        policy: 'cap-transfers',
      }),
    ]);
  });

  test("an invalid modification denies the call with the tool schema's message", async () => {
    const { handle, callId } = await startTransfer('break-me', 700, { policy: 'cap-transfers', params: { cap: -1 } });
    const result = (await handle.result()) as AgentResult;
    expect(transfers.some((transfer) => transfer.to === 'break-me')).toBe(false);
    const denial =
      'approval policy "cap-transfers" modified the arguments of "transfer" to ones that do not fit its schema: amount: Too small: expected number to be >0';
    expect(result.messages[2]).toMatchObject({ role: 'tool', tool_call_id: callId, content: `Denied: ${denial}` });
    expect(await decisionsOf(handle)).toEqual([
      expect.objectContaining({ callId, decision: 'deny', reason: denial, via: 'policy' }),
    ]);
  });

  test('ask: the call waits for a person as without a policy, survives a worker restart, and a human approves it by update', async () => {
    const { handle, callId } = await startTransfer('ask-me', 500, { ...LIMITS, timeout: '10m' });
    const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    expect(waiting.pendingApprovals).toEqual([
      expect.objectContaining({ callId, toolName: 'transfer', arguments: { amount: 500, to: 'ask-me' } }),
    ]);
    // A new worker replays the run: the policy runs again and asks again, so the history matches.
    await env.restartWorker();
    const recorded = await handle.executeUpdate(decideUpdate, { args: [{ callId, decision: 'approve' }] });
    expect(recorded).toMatchObject({ callId, decision: 'approve', via: 'update' });
    expect(recorded).not.toHaveProperty('policy');
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');
    expect(transfers).toContainEqual({ amount: 500, to: 'ask-me' });
    const { events } = await handle.query(eventsQuery, { after: 0 });
    expect(events.filter((event) => event.type === 'approval-request')).toEqual([
      expect.objectContaining({
        callId,
        toolName: 'transfer',
        policy: 'transfer-limits',
        reason: 'a person decides mid-sized transfers',
      }),
    ]);
    expect(await decisionsOf(handle)).toEqual([expect.objectContaining({ callId, via: 'update' })]);
  });

  test('a policy that throws denies the call with what it threw; the run goes on', async () => {
    const { handle, callId } = await startTransfer('throw-me', 10, { policy: 'broken' });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');
    expect(transfers.some((transfer) => transfer.to === 'throw-me')).toBe(false);
    const reason = 'approval policy "broken" failed: it threw Error: the limits table is not loaded';
    expect(result.messages[2]).toMatchObject({ role: 'tool', tool_call_id: callId, content: `Denied: ${reason}` });
    expect(await decisionsOf(handle)).toEqual([
      expect.objectContaining({ callId, decision: 'deny', reason, via: 'policy', policy: 'broken' }),
    ]);
  });

  test('an unknown policy fails the run at start with InvalidAgentInput, naming the registered ones', async () => {
    const model = env.scenario([{ content: 'never asked' }]);
    const failure = await env.runExpectingFailure({
      model,
      tools: ['transfer'],
      message: 'pay',
      approval: { policy: 'no-such-policy' },
    });
    expect(failure.type).toBe(FailureType.invalidInput);
    expect(failure.message).toBe(
      'Invalid agent input: approval.policy: no approval policy named "no-such-policy" is registered (registered: broken, cap-transfers, transfer-limits); register it with registerApprovalPolicy in the worker\'s workflows module',
    );
    expect(env.model.requests(model)).toHaveLength(0);
  });
});
