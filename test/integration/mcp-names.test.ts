import { NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { FailureType } from '../../src/shared/failure-catalogue';
import type { AgentResult } from '../../src/shared/agent-result';
import { withAnswerRestored, type AgentWorkflowResult } from '../../src/shared/result-answer';
import type { ChatMessage } from '../../src/shared/messages';
import { AgentRunnerPlugin } from '../../src/worker/plugin';
import { changingServer, everythingStdio } from '../helpers/mcp-servers';
import { TestEnv, testServerAddress } from '../helpers/test-env';

/**
 * How MCP tools are named and found, through a real worker: `<server>__<tool>` and `<server>__*`, names that
 * match nothing or cannot be tool names refused at start; a server that announces a changed tool list is listed
 * again for the next run; the runner's idempotency key reaches the server in `_meta`; and the same servers on a
 * user's own worker through `AgentRunnerPlugin`.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ mcpServers: { everything: everythingStdio(), fixture: changingServer() } });
}, 120_000);
afterAll(async () => {
  await env?.close();
});

function toolResults(result: AgentResult): string[] {
  return result.messages.flatMap((message: ChatMessage) => (message.role === 'tool' ? [String(message.content)] : []));
}

describe('names', () => {
  test('a tool of a server that is not configured is an unknown tool, refused at start', async () => {
    const failure = await env.runExpectingFailure({ model: env.scenario([]), tools: ['nope__x'], message: 'go' });
    expect(failure.type).toBe(FailureType.invalidInput);
    expect(failure.message).toMatch(/tools: unknown tool "nope__x"; the worker registers: /);
  });

  test('a wildcard that matches no tool is refused at start, as is a tool the server does not have', async () => {
    const wildcard = await env.runExpectingFailure({ model: env.scenario([]), tools: ['nope__*'], message: 'go' });
    expect(wildcard.type).toBe(FailureType.invalidInput);
    expect(wildcard.message).toMatch(/unknown tool "nope__\*"/);
    const missing = await env.runExpectingFailure({
      model: env.scenario([]),
      tools: ['everything__no-such-tool'],
      message: 'go',
    });
    expect(missing.message).toMatch(/unknown tool "everything__no-such-tool"/);
  });

  test("a server's tool whose name cannot be a tool name is never offered; naming it says why", async () => {
    const model = env.scenario([{ content: 'fine' }]);
    const result = await env.run({ model, tools: ['fixture__*'], message: 'go' });
    expect(result.response).toBe('fine');
    const offered = env.model.requests(model)[0]!.tools!.map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(['fixture__echo-meta', 'fixture__add-tool']));
    expect(offered).not.toContain('fixture__has.dot');

    const failure = await env.runExpectingFailure({
      model: env.scenario([]),
      tools: ['fixture__has.dot'],
      message: 'go',
    });
    expect(failure.message).toContain(
      'tools: "fixture__has.dot" is not available: MCP server "fixture" lists a tool the runner cannot offer: "fixture__has.dot" is not a valid tool name',
    );
    // That problem is the one tool's: another name of the server the server does not list is just unknown.
    const other = await env.runExpectingFailure({
      model: env.scenario([]),
      tools: ['fixture__nothing'],
      message: 'go',
    });
    expect(other.message).toMatch(/tools: unknown tool "fixture__nothing"; the worker registers: /);
  });
});

describe('the catalog follows the server', () => {
  test('a tool the server adds (notifications/tools/list_changed) is offered to the next run', async () => {
    const first = env.scenario([
      { toolCalls: [{ name: 'fixture__add-tool', arguments: { name: 'late-tool' } }] },
      { content: 'added' },
    ]);
    const before = await env.run({ model: first, tools: ['fixture__*'], message: 'add', resultMessages: 'all' });
    expect(toolResults(before)).toEqual(['added late-tool']);
    expect(env.model.requests(first)[0]!.tools!.map((tool) => tool.function.name)).not.toContain('fixture__late-tool');

    const second = env.scenario([{ toolCalls: [{ name: 'fixture__late-tool', arguments: {} }] }, { content: 'ok' }]);
    const after = await env.run({ model: second, tools: ['fixture__*'], message: 'use it', resultMessages: 'all' });
    expect(env.model.requests(second)[0]!.tools!.map((tool) => tool.function.name)).toContain('fixture__late-tool');
    expect(toolResults(after)).toEqual(['I am late-tool']);
  });
});

describe('idempotency', () => {
  test("the runner's idempotency key for the call reaches the server in _meta", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'fixture__echo-meta', arguments: { note: 'hi' } }] },
      { content: 'ok' },
    ]);
    const handle = await env.start({ model, tools: ['fixture__echo-meta'], message: 'go', resultMessages: 'all' });
    const result = withAnswerRestored((await handle.result()) as AgentWorkflowResult);
    const meta = JSON.parse(toolResults(result)[0]!) as Record<string, unknown>;
    const { runId } = await handle.describe();
    expect(meta['agent-runner/idempotency-key']).toBe(`${handle.workflowId}:${runId}:call-1-1`);
  });
});

describe('AgentRunnerPlugin', () => {
  test("mcpServers on a user's own Worker.create: a run calls the server's tools", async () => {
    const connection = await NativeConnection.connect({ address: testServerAddress() });
    const taskQueue = `mcp-plugin-${randomUUID()}`;
    const bundlePath = process.env.AGENT_TEST_WORKFLOW_BUNDLE!;
    const worker = await Worker.create({
      connection,
      namespace: 'default',
      taskQueue,
      workflowBundle: { codePath: bundlePath },
      plugins: [
        new AgentRunnerPlugin({
          tools: [],
          model: { baseURL: env.model.baseURL, apiKey: 'test-key', defaultModel: 'unused-default' },
          mcpServers: { tools: everythingStdio() },
          streamListener: false,
        }),
      ],
    });
    const model = env.scenario([
      { toolCalls: [{ name: 'tools__echo', arguments: { message: 'from my worker' } }] },
      { content: 'done' },
    ]);
    try {
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(WORKFLOW_TYPE, {
          taskQueue,
          workflowId: `mcp-plugin-${randomUUID()}`,
          args: [{ model, tools: ['tools__echo'], message: 'go', resultMessages: 'all' }],
        });
        const result = withAnswerRestored((await handle.result()) as AgentWorkflowResult);
        expect(toolResults(result)).toEqual(['Echo: from my worker']);
      });
    } finally {
      await connection.close();
    }
  });
});
