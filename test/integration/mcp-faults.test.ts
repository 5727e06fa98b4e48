import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AgentResult } from '../../src/shared/agent-result';
import type { ChatMessage } from '../../src/shared/messages';
import { faultRecords, faultServer } from '../helpers/fault-server';
import { isAlive } from '../../src/dev-server/dev-server';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * MCP servers that fail, through a real worker: test/fixtures/mcp/fault-server.mjs started over stdio, SIGKILLed
 * during a call, dying on every call, hanging, not starting, answering 10 MB, listing 1,000 tools; and the worker's
 * shutdown leaving none of their processes behind.
 */

let env: TestEnv;
let directory: string;
const logs = {
  faulty: '',
  dying: '',
  crashing: '',
  hanging: '',
  many: '',
  bulky: '',
  breakable: '',
};
let brokenFlag: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'mcp-faults-'));
  for (const name of Object.keys(logs) as (keyof typeof logs)[]) logs[name] = path.join(directory, `${name}.jsonl`);
  brokenFlag = path.join(directory, 'broken');
  env = await TestEnv.create({
    mcpServers: {
      faulty: faultServer(logs.faulty, {}, { timeout: '3 seconds', deadline: '30 seconds' }),
      dying: faultServer(logs.dying, {}, { timeout: '4 seconds', deadline: '10 seconds' }),
      missing: { command: path.join(directory, 'no-such-server'), timeout: '5 seconds' },
      crashing: faultServer(logs.crashing, { FAULT_EXIT_AT_START: '1' }),
      hanging: faultServer(logs.hanging, { FAULT_HANG_LIST: '1' }),
      many: faultServer(logs.many, { FAULT_TOOL_COUNT: '1000' }),
      bulky: faultServer(logs.bulky, {}, { timeout: '60 seconds' }), // reading 10 MB over stdio takes seconds, more on a loaded machine
      breakable: faultServer(logs.breakable, { FAULT_BROKEN_IF: brokenFlag }, { timeout: '5 seconds' }),
    },
  });
});
afterAll(async () => {
  await env?.close();
});

function toolResults(result: AgentResult): string[] {
  return result.messages.flatMap((message: ChatMessage) => (message.role === 'tool' ? [String(message.content)] : []));
}

const finish = { toolCalls: [{ name: 'finish', arguments: { note: 'done' } }] };

describe('an MCP server that dies', () => {
  test('SIGKILLed during a call: the call runs again on a restarted server and the model sees its result', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'faulty__slow', arguments: { ms: 1_500, label: 'report' } }] },
      finish,
    ]);
    const handle = await env.start({ model, tools: ['faulty__slow', 'finish'], message: 'go' });
    const calls = await waitFor(
      async () => faultRecords(logs.faulty).filter((record) => record.event === 'call' && record.label === 'report'),
      (records) => records.length === 1,
      60_000,
    );
    process.kill(calls[0]!.pid, 'SIGKILL');
    const result = (await handle.result()) as AgentResult;

    expect(toolResults(result)).toEqual(['slow report done', 'done']);
    const records = faultRecords(logs.faulty).filter((record) => record.label === 'report');
    // Two executions, each on its own process, with one idempotency key; only the second finished.
    expect(records.filter((record) => record.event === 'call')).toHaveLength(2);
    expect(new Set(records.map((record) => record.key)).size).toBe(1);
    expect(records.filter((record) => record.event === 'done')).toHaveLength(1);
    expect(records.find((record) => record.event === 'done')!.pid).not.toBe(calls[0]!.pid);
    // The model never heard of the lost attempt.
    const requests = env.model.requests(model);
    expect(JSON.stringify(requests[1]!.messages)).not.toMatch(/closed|lost|error/i);
  }, 90_000);

  test('dying on every call: retried until its deadline, then the model is told the call did not finish', async () => {
    const model = env.scenario([{ toolCalls: [{ name: 'dying__exit', arguments: {} }] }, finish]);
    const started = Date.now();
    const result = await env.run({ model, tools: ['dying__exit', 'finish'], message: 'go' });
    const elapsed = Date.now() - started;

    const [answer] = toolResults(result);
    expect(answer).toMatch(/^Error: tool "dying__exit" did not finish before its deadline/);
    expect(answer).not.toMatch(/failed/);
    const starts = faultRecords(logs.dying).filter((record) => record.event === 'start');
    expect(starts.length).toBeGreaterThanOrEqual(3); // restarted for every attempt
    // Temporal gives up when the next retry would start past the 10 s deadline, so the call ends at or a little before it.
    expect(elapsed).toBeGreaterThanOrEqual(5_000);
    expect(elapsed).toBeLessThan(45_000);
  }, 60_000);
});

describe('an MCP server that hangs or cannot start', () => {
  test('a call that hangs ends with a tool error naming the server within the timeout, and the server serves on', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'faulty__hang', arguments: {} }] },
      { toolCalls: [{ name: 'faulty__echo', arguments: { text: 'still here' } }] },
      finish,
    ]);
    const started = Date.now();
    const result = await env.run({ model, tools: ['faulty__hang', 'faulty__echo', 'finish'], message: 'go' });
    const [hung, echo] = toolResults(result);
    expect(hung).toBe('Error: MCP server "faulty" did not answer the call of "hang" within 2 s');
    expect(echo).toBe('still here');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(faultRecords(logs.faulty).filter((record) => record.tool === 'hang')).toHaveLength(1); // not run again
  }, 60_000);

  test('a server that stops answering altogether is restarted after the call times out', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'faulty__freeze', arguments: {} }] },
      { toolCalls: [{ name: 'faulty__echo', arguments: { text: 'restarted' } }] },
      finish,
    ]);
    const result = await env.run({ model, tools: ['faulty__freeze', 'faulty__echo', 'finish'], message: 'go' });
    const [frozen, echo] = toolResults(result);
    expect(frozen).toBe('Error: MCP server "faulty" did not answer the call of "freeze" within 2 s');
    expect(echo).toBe('restarted');
    const records = faultRecords(logs.faulty);
    const frozenPid = records.find((record) => record.tool === 'freeze')!.pid;
    expect(records.find((record) => record.tool === 'echo' && record.pid !== frozenPid)).toBeDefined();
    await waitFor(
      async () => isAlive(frozenPid),
      (alive) => !alive,
      10_000,
    );
  }, 60_000);

  test('a command that does not exist: a run naming its tool fails at start, naming the server', async () => {
    const model = env.scenario([finish]);
    const failure = await env.runExpectingFailure({ model, tools: ['missing__anything', 'finish'], message: 'go' });
    expect(failure.message).toMatch(
      /"missing__anything" is not available: MCP server "missing" is unavailable: its command was not found/,
    );
  }, 60_000);

  test('a server that exits at once: a run naming its tool fails at start, quoting what it printed', async () => {
    const model = env.scenario([finish]);
    const failure = await env.runExpectingFailure({ model, tools: ['crashing__echo', 'finish'], message: 'go' });
    expect(failure.message).toMatch(
      'MCP server "crashing" is unavailable: it exited before the MCP handshake finished; ' +
        'its last output: fault-server: cannot open the database /data/app.db',
    );
  }, 60_000);

  test('a server that cannot start again after it died: the call ends with a tool error naming the server', async () => {
    const first = env.scenario([{ toolCalls: [{ name: 'breakable__echo', arguments: { text: 'one' } }] }, finish]);
    expect(toolResults(await env.run({ model: first, tools: ['breakable__echo', 'finish'], message: 'go' }))[0]).toBe(
      'one',
    );
    await writeFile(brokenFlag, '');
    process.kill(faultRecords(logs.breakable).find((record) => record.event === 'start')!.pid, 'SIGKILL');
    const second = env.scenario([{ toolCalls: [{ name: 'breakable__echo', arguments: { text: 'two' } }] }, finish]);
    const started = Date.now();
    const result = await env.run({ model: second, tools: ['breakable__echo', 'finish'], message: 'go' });
    expect(toolResults(result)[0]).toBe(
      'Error: MCP server "breakable" is unavailable: it exited before the MCP handshake finished; ' +
        'its last output: fault-server: broken on purpose',
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);

  test('a run naming all tools of a server that cannot start fails at start, saying why', async () => {
    const model = env.scenario([finish]);
    const failure = await env.runExpectingFailure({ model, tools: ['crashing__*', 'finish'], message: 'go' });
    expect(failure.message).toMatch(/crashing__\*/);
    expect(failure.message).toMatch(/cannot open the database/);
  }, 60_000);

  test('a server whose tools/list hangs: the run fails at start within the catalog timeout, saying why', async () => {
    const model = env.scenario([finish]);
    const started = Date.now();
    const failure = await env.runExpectingFailure({ model, tools: ['hanging__*', 'finish'], message: 'go' });
    expect(failure.message).toMatch(/MCP server "hanging" is unavailable: tools\/list failed/);
    expect(Date.now() - started).toBeLessThan(40_000);
  }, 90_000);
});

describe('an MCP server that answers too much', () => {
  test('10 MB of text is cut to the tool output limit with a note; the worker and the server serve on', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'bulky__big', arguments: { bytes: 10_000_000 } }] },
      { toolCalls: [{ name: 'bulky__echo', arguments: { text: 'after' } }] },
      finish,
    ]);
    const result = await env.run({ model, tools: ['bulky__big', 'bulky__echo', 'finish'], message: 'go' });
    // The result keeps the newest messages only (it would not fit a payload otherwise): read what the model saw.
    const seen = env.model.requests(model)[1]!.messages.at(-1)!;
    const big = String(seen.content);
    const echo = toolResults(result).at(-2);
    expect(seen.role).toBe('tool');
    expect(big).toMatch(/^x{1000}/);
    expect(big).toMatch(/\[cut: the tool returned 9\.5 MiB; a tool result keeps at most 256 KiB\]$/);
    expect(Buffer.byteLength(big!)).toBeLessThanOrEqual(256 * 1024);
    expect(echo).toBe('after');
    expect(faultRecords(logs.bulky).filter((record) => record.tool === 'big')).toHaveLength(1);
  }, 120_000);

  test('an answer larger than the stdio client reads (10 MiB) is a tool error, run once, not a lost call', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'bulky__big', arguments: { bytes: 11_000_000 } }] },
      { toolCalls: [{ name: 'bulky__echo', arguments: { text: 'after' } }] },
      finish,
    ]);
    const result = await env.run({ model, tools: ['bulky__big', 'bulky__echo', 'finish'], message: 'go' });
    const [big, echo] = toolResults(result);
    expect(big).toMatch(/^Error: MCP server "bulky" answered with a message larger than the client reads/);
    expect(echo).toBe('after');
    expect(faultRecords(logs.bulky).filter((record) => record.tool === 'big')).toHaveLength(2); // this one and the 10 MB one
  }, 120_000);

  test('1,000 tools: every page is listed; the catalog in history carries only the tools the run names', async () => {
    const named = await env.start({
      model: env.scenario([{ toolCalls: [{ name: 'many__tool_0999', arguments: { value: 'last' } }] }, finish]),
      tools: ['many__tool_0999', 'many__echo', 'finish'],
      message: 'go',
    });
    const result = (await named.result()) as AgentResult;
    expect(toolResults(result)[0]).toBe('tool_0999: last');
    expect(faultRecords(logs.many).filter((record) => record.event === 'list')).toHaveLength(11); // 1,006 tools, 100 a page
    const namedMarker = catalogMarkerBytes(await named.fetchHistory());
    expect(namedMarker).toBeLessThan(20_000);

    const modelName = env.scenario([finish]);
    const all = await env.start({ model: modelName, tools: ['many__*', 'finish'], message: 'go' });
    await all.result();
    const offered = env.model.requests(modelName)[0]!.tools!.map((tool) => tool.function.name);
    expect(offered).toHaveLength(1_007); // finish, the fixture's 6 tools and the 1,000 generated ones
    const history = await all.fetchHistory();
    const allMarker = catalogMarkerBytes(history);
    // About 280 B a tool: 1,000 tools put some 280 KB into the run's history (docs/operations/mcp-servers.md).
    expect(allMarker).toBeGreaterThan(100_000);
  }, 90_000);
});

describe('worker shutdown', () => {
  test('closes every connection and leaves no server process behind', async () => {
    const pids = new Set(
      Object.values(logs).flatMap((log) =>
        faultRecords(log)
          .filter((r) => r.event === 'start')
          .map((r) => r.pid),
      ),
    );
    const running = [...pids].filter(isAlive);
    expect(running.length).toBeGreaterThanOrEqual(2); // faulty and many at least
    await env.stopWorker();
    expect([...pids].filter(isAlive)).toEqual([]);
    await env.startWorker();
  }, 60_000);
});

/** The bytes of the describeTools marker (the tool catalog) in a history. */
function catalogMarkerBytes(history: { events?: { markerRecordedEventAttributes?: unknown }[] | null }): number {
  const markers = (history.events ?? []).flatMap((event) =>
    event.markerRecordedEventAttributes ? [JSON.stringify(event.markerRecordedEventAttributes)] : [],
  );
  const catalog = markers.find((marker) => marker.length > 0);
  return Buffer.byteLength(catalog ?? '');
}
