import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import type { AgentResult } from '../../src/shared/agent-result';
import type { ChatMessage } from '../../src/shared/messages';
import { everythingHttp, everythingStdio } from '../helpers/mcp-servers';
import { rawHistory } from '../helpers/raw-history';
import { TestEnv } from '../helpers/test-env';

/**
 * `@modelcontextprotocol/server-everything` from the npm registry, once over stdio (the worker starts it) and once
 * over Streamable HTTP (its own process on a free port), both on one real worker: the scripted model calls the same
 * tools on each and reads their real results. The stdio server's `env` and the HTTP server's `headers` carry
 * credentials; none of them shows in what the model is sent, the run's raw history, its events or the worker's log.
 */

const STDIO_SECRET = 'stdio-secret-4b1d9e0f';
const HEADER_SECRET = 'http-secret-7c2a51aa';

/** Every line the worker's runtime logs, at every level. */
const logLines: string[] = [];

let env: TestEnv;
let http: Awaited<ReturnType<typeof everythingHttp>>;
beforeAll(async () => {
  // Installed before anything else touches the runtime, so the worker's own lines (MCP ones included) come here.
  Runtime.install({
    logger: new DefaultLogger('TRACE', (entry: LogEntry) =>
      logLines.push(`${entry.level} ${entry.message} ${JSON.stringify(entry.meta ?? {})}`),
    ),
  });
  http = await everythingHttp();
  env = await TestEnv.create({
    mcpServers: {
      everything: everythingStdio({ AGENT_TEST_TOKEN: STDIO_SECRET }),
      web: { url: http.url, headers: { Authorization: `Bearer ${HEADER_SECRET}` } },
    },
  });
}, 120_000);
afterAll(async () => {
  await env?.close();
  await http?.stop();
});

function toolResults(result: AgentResult): string[] {
  return result.messages.flatMap((message: ChatMessage) => (message.role === 'tool' ? [String(message.content)] : []));
}

describe.each([
  ['stdio', 'everything'],
  ['Streamable HTTP', 'web'],
])('server-everything over %s', (_transport, server) => {
  test('echo, get-sum, get-structured-content, get-tiny-image and a short long-running operation', async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: `${server}__echo`, arguments: { message: `hello over ${server}` } },
          { name: `${server}__get-sum`, arguments: { a: 19, b: 23 } },
          { name: `${server}__get-structured-content`, arguments: { location: 'Chicago' } },
          { name: `${server}__get-tiny-image`, arguments: {} },
          { name: `${server}__trigger-long-running-operation`, arguments: { duration: 1, steps: 2 } },
        ],
      },
      { content: 'done' },
    ]);
    const result = await env.run({ model, tools: [`${server}__*`], message: 'go', resultMessages: 'all' });
    const [echo, sum, structured, image, long] = toolResults(result);
    expect(echo).toBe(`Echo: hello over ${server}`);
    expect(sum).toBe('The sum of 19 and 23 is 42.');
    // structuredContent as JSON, the server's text copy of it not repeated.
    expect(JSON.parse(structured!)).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
    expect(image).toMatch(/\[image: image\/png, [\d.]+ (B|KiB)\]/);
    expect(image).not.toMatch(/iVBOR/);
    expect(long).toBe('Long running operation completed. Duration: 1 seconds, Steps: 2.');

    // The catalog the model was offered: the server's tools by their prefixed names, its JSON Schema as given.
    const offered = env.model.requests(model)[0]!.tools!;
    const sumTool = offered.find((tool) => tool.function.name === `${server}__get-sum`);
    expect(sumTool?.function.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(offered.every((tool) => tool.function.name.startsWith(`${server}__`))).toBe(true);
  });
});

describe('credentials stay on the worker', () => {
  test("a stdio server's env secret printed by get-env is redacted from the result, history, events and log", async () => {
    const model = env.scenario([{ toolCalls: [{ name: 'everything__get-env', arguments: {} }] }, { content: 'seen' }]);
    const handle = await env.start({ model, tools: ['everything__get-env'], message: 'print the environment' });
    const result = (await handle.result()) as AgentResult;
    expect(result.response).toBe('seen');

    // The server did print its environment: the variable is there, its value is not.
    const sent = env.model.requests(model)[1]!.messages.at(-1)!.content as string;
    expect(JSON.parse(sent)).toMatchObject({ AGENT_TEST_TOKEN: '[redacted]' });
    expect(JSON.stringify(env.model.requests(model))).not.toContain(STDIO_SECRET);

    const history = await rawHistory(handle.workflowId);
    expect(history.holding([STDIO_SECRET, HEADER_SECRET])).toEqual([]);
    const { events } = await handle.query(eventsQuery, { after: 0 });
    expect(events.some((event) => event.type === 'tool-call-end')).toBe(true);
    expect(JSON.stringify(events)).not.toContain(STDIO_SECRET);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((line) => line.includes(STDIO_SECRET) || line.includes(HEADER_SECRET))).toEqual([]);
  });

  test("an HTTP server's header secret is in no result, history, event or log line", async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'web__get-env', arguments: {} },
          { name: 'web__echo', arguments: { message: 'hi' } },
        ],
      },
      { content: 'seen' },
    ]);
    const handle = await env.start({ model, tools: ['web__get-env', 'web__echo'], message: 'go' });
    await handle.result();
    expect(JSON.stringify(env.model.requests(model))).not.toContain(HEADER_SECRET);
    const history = await rawHistory(handle.workflowId);
    expect(history.holding([HEADER_SECRET, STDIO_SECRET])).toEqual([]);
    const { events } = await handle.query(eventsQuery, { after: 0 });
    expect(JSON.stringify(events)).not.toContain(HEADER_SECRET);
    // The worker did connect over HTTP, and said so in its log, without the header.
    expect(logLines.some((line) => /MCP server "web" connected/.test(line))).toBe(true);
    expect(logLines.filter((line) => line.includes(HEADER_SECRET))).toEqual([]);
  });
});
