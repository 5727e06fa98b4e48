import { access, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { approveSignal, denySignal, eventsQuery } from '../../src/workflow-contract/definitions';
import type { AgentResult } from '../../src/shared/agent-result';
import { TOOL_OUTPUT_LIMIT_BYTES } from '../../src/shared/defaults/sizes';
import type { ChatMessage } from '../../src/shared/messages';
import { everythingStdio, filesystemServer } from '../helpers/mcp-servers';
import { TestEnv } from '../helpers/test-env';
import { waitForState } from '../helpers/wait';

/**
 * What a run does around a call applies to MCP tools as to defined ones, through a real worker and the reference
 * servers: approvals (a server's named tools, or all of them) hold the call until a decision and the server sees
 * only approved calls; loop detection stops a run repeating an MCP call; the result pipeline and the worker's size
 * limit cut what a server returns.
 */

let env: TestEnv;
let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'mcp-controls-'));
  await writeFile(path.join(directory, 'notes.txt'), 'line\n'.repeat(100));
  // Past the worker's limit on one tool result, in characters that are one byte each.
  await writeFile(path.join(directory, 'huge.txt'), 'x'.repeat(TOOL_OUTPUT_LIMIT_BYTES + 50_000));
  env = await TestEnv.create({
    mcpServers: {
      files: { ...filesystemServer(directory), approval: ['write_file'] },
      everything: everythingStdio(),
      gated: { ...everythingStdio(), approval: 'all' },
    },
  });
}, 120_000);
afterAll(async () => {
  await env?.close();
});

function toolResults(result: AgentResult): string[] {
  return result.messages.flatMap((message: ChatMessage) => (message.role === 'tool' ? [String(message.content)] : []));
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** A run that reads notes.txt and writes `file` in one answer, waiting for the write's approval. */
async function startWrite(file: string) {
  const target = path.join(directory, file);
  const model = env.scenario([
    {
      toolCalls: [
        { name: 'files__read_text_file', arguments: { path: path.join(directory, 'notes.txt') } },
        { name: 'files__write_file', arguments: { path: target, content: 'approved content' } },
      ],
    },
    { content: 'done' },
  ]);
  const handle = await env.start({ model, tools: ['files__*'], message: 'write it', resultMessages: 'all' });
  const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_approval');
  return { model, handle, waiting, target };
}

describe('approvals on MCP tools', () => {
  test("a server's named tool waits; the write happens only once approved, the read did not wait", async () => {
    const { handle, waiting, target } = await startWrite('approved.txt');
    expect(waiting.pendingApprovals).toEqual([
      expect.objectContaining({
        toolName: 'files__write_file',
        arguments: { path: target, content: 'approved content' },
      }),
    ]);
    expect(await exists(target)).toBe(false);
    await handle.signal(approveSignal, { callId: waiting.pendingApprovals[0]!.callId });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('done');
    expect(await readFile(target, 'utf8')).toBe('approved content');
    const [read, written] = toolResults(result);
    expect(read).toContain('line');
    expect(written).toContain('Successfully wrote');
    const { events } = await handle.query(eventsQuery, { after: 0 });
    expect(events.find((event) => event.type === 'approval-decision')).toMatchObject({
      toolName: 'files__write_file',
      decision: 'approve',
    });
  });

  test('denied: the server never sees the call, and the model hears why', async () => {
    const { handle, waiting, target } = await startWrite('denied.txt');
    await handle.signal(denySignal, { callId: waiting.pendingApprovals[0]!.callId, reason: 'not that file' });
    const result = (await handle.result()) as AgentResult;
    expect(toolResults(result)[1]).toBe('Denied: not that file');
    expect(await exists(target)).toBe(false);
  });

  test("approval 'all': every tool of the server waits", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'gated__get-sum', arguments: { a: 40, b: 2 } }] },
      { content: 'done' },
    ]);
    const handle = await env.start({ model, tools: ['gated__get-sum'], message: 'add', resultMessages: 'all' });
    const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    expect(waiting.pendingApprovals.map((pending) => pending.toolName)).toEqual(['gated__get-sum']);
    await handle.signal(approveSignal, { callId: waiting.pendingApprovals[0]!.callId });
    expect(toolResults((await handle.result()) as AgentResult)).toEqual(['The sum of 40 and 2 is 42.']);
  });

  test("the run's own approval.tools names an MCP tool by its prefixed name", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'everything__echo', arguments: { message: 'may I?' } }] },
      { content: 'done' },
    ]);
    const handle = await env.start({
      model,
      tools: ['everything__*'],
      message: 'echo',
      approval: { tools: ['everything__echo'] },
      resultMessages: 'all',
    });
    const waiting = await waitForState(handle, (state) => state.status === 'waiting_for_approval');
    expect(waiting.pendingApprovals.map((pending) => pending.toolName)).toEqual(['everything__echo']);
    await handle.signal(approveSignal, { callId: waiting.pendingApprovals[0]!.callId });
    expect(toolResults((await handle.result()) as AgentResult)).toEqual(['Echo: may I?']);
  });
});

describe('loop detection, the result pipeline and size limits on MCP results', () => {
  test('loop detection stops a run that repeats an MCP call, before the repeat runs', async () => {
    const echo = { toolCalls: [{ name: 'everything__echo', arguments: { message: 'again' } }] };
    const model = env.scenario([echo, echo, echo, { content: 'never' }]);
    const result = await env.run({
      model,
      tools: ['everything__echo'],
      message: 'go',
      loopDetection: { threshold: 3, action: 'stop' },
      resultMessages: 'all',
    });
    expect(result.terminationReason).toEqual({ type: 'loop_detected', toolName: 'everything__echo', count: 3 });
    expect(toolResults(result)).toEqual([
      'Echo: again',
      'Echo: again',
      'Not executed: the run stopped before this call ran.',
    ]);
  });

  test("resultProcessing.perTool cuts an MCP tool's result by its prefixed name", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'files__read_text_file', arguments: { path: path.join(directory, 'notes.txt') } }] },
      { content: 'ok' },
    ]);
    const handle = await env.start({
      model,
      tools: ['files__read_text_file'],
      message: 'read',
      resultProcessing: { perTool: { files__read_text_file: 50 } },
      resultMessages: 'all',
    });
    const result = (await handle.result()) as AgentResult;
    // server-filesystem returns the file as structured content, `{ content }`: the model reads it as JSON, once.
    const whole = JSON.stringify({ content: 'line\n'.repeat(100) });
    expect(toolResults(result)[0]).toBe(`${whole.slice(0, 50)}\n[truncated: kept 50 of ${whole.length} characters]`);
    const { events } = await handle.query(eventsQuery, { after: 0 });
    expect(events.filter((event) => event.type === 'tool-result-truncation')).toEqual([
      expect.objectContaining({ toolName: 'files__read_text_file' }),
    ]);
  });

  test("a server's result past the worker's limit on one tool result is cut, with a note", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'files__read_text_file', arguments: { path: path.join(directory, 'huge.txt') } }] },
      { content: 'ok' },
    ]);
    const result = await env.run({ model, tools: ['files__read_text_file'], message: 'read', resultMessages: 'all' });
    const [cut] = toolResults(result);
    expect(Buffer.byteLength(cut!)).toBeLessThanOrEqual(TOOL_OUTPUT_LIMIT_BYTES);
    expect(cut!.startsWith('{"content":"xxxx')).toBe(true);
    expect(cut!.slice(-100)).toMatch(
      /\n\[cut: the tool returned 30\d(\.\d)? KiB; a tool result keeps at most 256 KiB\]$/,
    );
  });
});
