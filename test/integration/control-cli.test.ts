import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import type { AgentState } from '../../src/shared/agent-result';
import { runTemporalCli } from '../helpers/cli-process';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * The Temporal CLI commands of docs/guide/steering.md, run through the real `temporal` binary
 * against a real worker: start, query, approve and deny by signal and by
 * update, terminate, and list runs by search attribute.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

async function temporal(...args: string[]): Promise<string> {
  const finished = await runTemporalCli(args);
  if (finished.code !== 0) throw new Error(`temporal ${args.join(' ')} exited ${finished.code}: ${finished.stderr}`);
  return finished.stdout;
}

async function startFromCli(input: Record<string, unknown>): Promise<string> {
  const workflowId = `cli-${randomUUID()}`;
  await temporal(
    'workflow',
    'start',
    '--type',
    'agentWorkflow',
    '--task-queue',
    env.taskQueue,
    '--workflow-id',
    workflowId,
    '--input',
    JSON.stringify(input),
  );
  return workflowId;
}

async function stateFromCli(workflowId: string): Promise<AgentState> {
  const output = await temporal(
    'workflow',
    'query',
    '--workflow-id',
    workflowId,
    '--name',
    'state',
    '--output',
    'json',
  );
  return (JSON.parse(output) as { queryResult: [AgentState] }).queryResult[0];
}

async function resultFromCli(
  workflowId: string,
): Promise<{ status: string; result: { response: string; terminationReason: unknown } }> {
  return JSON.parse(await temporal('workflow', 'result', '--workflow-id', workflowId, '--output', 'json')) as never;
}

function gatedWrite(file: string) {
  return {
    model: env.scenario([
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: file, content: 'cli' }, id: `call_${file.replace('.', '_')}` },
        ],
      },
      { content: `finished ${file}` },
    ]),
    tools: ['write_file'],
    message: 'write',
    approval: { tools: ['write_file'] },
  };
}

test('approve with `temporal workflow signal`, after finding the run with `temporal workflow list`', async () => {
  const workflowId = await startFromCli(gatedWrite('cli-approved.txt'));
  const state = await waitFor(
    () => stateFromCli(workflowId),
    (current) => current.status === 'waiting_for_approval',
  );
  const callId = state.pendingApprovals[0]?.callId ?? '';
  // The runner's id, not the model's (call_cli-approved_txt).
  expect(callId).toBe('call-1-1');

  const listed = await waitFor(
    () =>
      temporal(
        'workflow',
        'list',
        '--query',
        `AgentStatus='waiting_for_approval' AND WorkflowId='${workflowId}'`,
        '--output',
        'json',
      ),
    (output) => output.includes(workflowId),
  );
  expect(listed).toContain(workflowId);

  await temporal(
    'workflow',
    'signal',
    '--workflow-id',
    workflowId,
    '--name',
    'approve',
    '--input',
    JSON.stringify({ callId }),
  );
  expect(await resultFromCli(workflowId)).toMatchObject({
    status: 'COMPLETED',
    result: { response: 'finished cli-approved.txt' },
  });
  expect(await readFile(path.join(env.workspace, 'cli-approved.txt'), 'utf8')).toBe('cli');
  // A signal that names nobody is recorded as what the run can know: it came by signal. One audit line per decision.
  const decisions = (await env.client.workflow.getHandle(workflowId).query(eventsQuery, { after: 0 })).events.filter(
    (event) => event.type === 'approval-decision',
  );
  expect(decisions).toEqual([
    expect.objectContaining({ callId, decision: 'approve', via: 'signal', by: { via: 'signal' } }),
  ]);
});

test('deny with `temporal workflow update execute`, which answers the recorded decision; a bad decision is refused', async () => {
  const workflowId = await startFromCli(gatedWrite('cli-denied.txt'));
  const state = await waitFor(
    () => stateFromCli(workflowId),
    (current) => current.status === 'waiting_for_approval',
  );
  const callId = state.pendingApprovals[0]?.callId ?? '';

  const refused = await runTemporalCli([
    'workflow',
    'update',
    'execute',
    '--workflow-id',
    workflowId,
    '--name',
    'decide',
    '--input',
    JSON.stringify({ callId: 'call_unknown', decision: 'deny' }),
  ]);
  expect(refused.code).not.toBe(0);
  // The CLI logs the workflow's message with its quotes escaped.
  expect(refused.stderr).toMatch(
    /No call \\?"call_unknown\\?" is waiting for approval\. .*type: InvalidDecision, retryable: false/,
  );

  const answer = await temporal(
    'workflow',
    'update',
    'execute',
    '--workflow-id',
    workflowId,
    '--name',
    'decide',
    '--output',
    'json',
    '--input',
    JSON.stringify({ callId, decision: 'deny', reason: 'wrong folder', by: { name: 'oncall' } }),
  );
  // A name the sender gives is recorded with the Temporal message it came in.
  expect(answer).toMatch(/"by": \{\s*"name": "oncall",\s*"via": "update"\s*\}/);
  expect(answer).toContain('"decision": "deny"');
  expect(answer).toContain('"reason": "wrong folder"');
  const result = await resultFromCli(workflowId);
  expect(result.result.response).toBe('finished cli-denied.txt');
  const final = await stateFromCli(workflowId);
  expect(final.messages.find((message) => message.role === 'tool')?.content).toBe('Denied: wrong folder');
});

test('terminate gracefully with `temporal workflow signal --name terminate`', async () => {
  const workflowId = await startFromCli({
    model: env.scenario([{ content: 'slow', delayMs: 8_000 }]),
    tools: [],
    message: 'go',
  });
  await waitFor(
    () => stateFromCli(workflowId),
    (current) => current.iteration === 1,
  );
  await temporal(
    'workflow',
    'signal',
    '--workflow-id',
    workflowId,
    '--name',
    'terminate',
    '--input',
    JSON.stringify({ reason: 'from the CLI' }),
  );
  expect(await resultFromCli(workflowId)).toMatchObject({
    status: 'COMPLETED',
    result: { terminationReason: { type: 'external', via: 'signal', reason: 'from the CLI' } },
  });
  const listed = await waitFor(
    () =>
      temporal(
        'workflow',
        'list',
        '--query',
        `AgentTerminationReason='external' AND WorkflowId='${workflowId}'`,
        '--output',
        'json',
      ),
    (output) => output.includes(workflowId),
  );
  expect(listed).toContain(workflowId);
});
