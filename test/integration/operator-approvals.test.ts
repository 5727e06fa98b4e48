import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { approveSignal } from '../../src/workflow-contract/definitions';
import type { AgentResult } from '../../src/shared/agent-result';
import { everythingStdio } from '../helpers/mcp-servers';
import { cleanEnv, startScript, stopChild } from '../helpers/processes';
import { TestEnv, testServerAddress } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';

/**
 * The operator's approval policy, which a caller cannot lower: tools that always wait for a person on this worker
 * (`approvalRequired`, enforced where the run's catalog is loaded, so a run started straight through Temporal is
 * covered), and which tools callers of the HTTP API may name at all (`AGENT_API_ALLOWED_TOOLS`, a real API process).
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({
    mcpServers: { everything: { ...everythingStdio(), approval: 'none' } },
    approvalRequired: ['write_file', 'everything__*'],
  });
});
afterAll(async () => {
  await env.close();
});

describe("the worker's approvalRequired", () => {
  test('a run started through Temporal without `approval` still waits before write_file, and runs once approved', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'floor.txt', content: 'approved' } }] },
      { content: 'done' },
    ]);
    const handle = await env.start({ model, tools: ['write_file', 'calculator'], message: 'write it' });
    const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    expect(waiting.pendingApprovals).toMatchObject([{ callId: 'call-1-1', toolName: 'write_file' }]);
    await expect(readFile(path.join(env.workspace, 'floor.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    await handle.signal(approveSignal, { callId: 'call-1-1', by: { name: 'operator', via: 'client' } });
    expect(((await handle.result()) as AgentResult).response).toBe('done');
    expect(await readFile(path.join(env.workspace, 'floor.txt'), 'utf8')).toBe('approved');
  });

  test('an MCP tool whose server says approval "none" waits too', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'everything__echo', arguments: { message: 'hi' } }] },
      { content: 'echoed' },
    ]);
    const handle = await env.start({ model, tools: ['everything__echo'], message: 'echo' });
    const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    expect(waiting.pendingApprovals).toMatchObject([{ toolName: 'everything__echo' }]);
    await handle.signal(approveSignal, { callId: 'call-1-1' });
    expect(((await handle.result()) as AgentResult).response).toBe('echoed');
  });

  test("a run's own `approval` adds to the floor, and a tool on neither list runs at once", async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'calculator', arguments: { expression: '1+1' } },
          { name: 'list_files', arguments: { path: '.' } },
        ],
      },
      { content: 'listed' },
    ]);
    const handle = await env.start({
      model,
      tools: ['calculator', 'list_files'],
      message: 'add and list',
      approval: { tools: ['list_files'] },
      parallelToolCalls: true,
    });
    const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    expect(waiting.pendingApprovals.map((approval) => approval.toolName)).toEqual(['list_files']);
    await handle.signal(approveSignal, { callId: waiting.pendingApprovals[0]!.callId });
    expect(((await handle.result()) as AgentResult).response).toBe('listed');
  });
});

describe('AGENT_API_ALLOWED_TOOLS, in a real API process', () => {
  let api: { child: ChildProcess; url: string };
  const token = `allowed-${randomUUID()}`;
  beforeAll(async () => {
    const started = await startScript(
      'src/api/main.ts',
      cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: env.taskQueue,
        AGENT_API_TOKEN: token,
        AGENT_API_PORT: '0',
        AGENT_API_ALLOWED_TOOLS: 'calculator, everything__*',
      }),
      /Agent API at http:\/\/127\.0\.0\.1:\d+/,
    );
    const url = /Agent API at (http:\/\/127\.0\.0\.1:\d+)/.exec(started.output())![1]!;
    api = { child: started.child, url };
  }, 120_000);
  afterAll(async () => {
    await stopChild(api.child);
  });

  const post = async (route: string, body: unknown) => {
    const response = await fetch(`${api.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
  };

  test('POST /runs naming write_file is refused with 403 tool_not_allowed, and no run starts', async () => {
    const runId = `refused-${randomUUID()}`;
    const answer = await post('/runs', {
      run_id: runId,
      input: { model: 'unused', tools: ['calculator', 'write_file'], message: 'write' },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error?.code).toBe('tool_not_allowed');
    expect(answer.body.error?.message).toMatch(/"write_file"/);
    await expect(env.client.workflow.getHandle(runId).describe()).rejects.toThrow(/not found/i);
  });

  test('/chat is refused the same way, a terminating tool counting as named', async () => {
    const chat = await post('/chat', {
      context_id: `c-${randomUUID().slice(0, 8)}`,
      message: 'hi',
      tools: ['write_file'],
    });
    expect(chat.status).toBe(403);
    expect(chat.body.error?.code).toBe('tool_not_allowed');
    const terminating = await post('/chat', {
      context_id: `c-${randomUUID().slice(0, 8)}`,
      message: 'hi',
      tools: ['calculator'],
      terminating_config: { tool_ids: ['read_file'] },
    });
    expect(terminating.status).toBe(403);
    expect(terminating.body.error?.message).toMatch(/"read_file"/);
  });

  test('allowed tools, and tools of an allowed server, start a run', async () => {
    const model = env.scenario([{ content: 'fine' }]);
    const answer = await post('/runs', {
      input: { model, tools: ['calculator', 'everything__echo'], message: 'hi' },
    });
    expect(answer.status).toBe(202);
  });
});
