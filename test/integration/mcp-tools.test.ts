import type { AgentResult } from '../../src/shared/agent-result';
import type { ChatMessage } from '../../src/shared/messages';
import { everythingStdio } from '../helpers/mcp-servers';
import { TestEnv } from '../helpers/test-env';

/**
 * MCP servers as tools: `@modelcontextprotocol/server-everything` from the npm registry, started by the worker
 * over stdio; the scripted model calls its tools by their `<server>__<tool>` names and reads the real results.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({ mcpServers: { everything: everythingStdio() } });
});
afterAll(async () => {
  await env.close();
});

function toolResults(result: AgentResult): string[] {
  return result.messages.flatMap((message: ChatMessage) => (message.role === 'tool' ? [String(message.content)] : []));
}

describe('MCP tools over stdio', () => {
  test("the model calls a server's tools and reads their real results", async () => {
    const model = env.scenario([
      {
        toolCalls: [
          { name: 'everything__echo', arguments: { message: 'hello from the run' } },
          { name: 'everything__get-sum', arguments: { a: 2, b: 40 } },
          { name: 'everything__get-structured-content', arguments: { location: 'New York' } },
          { name: 'everything__get-tiny-image', arguments: {} },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { note: 'done' } }] },
    ]);
    const result = await env.run({ model, tools: ['everything__*', 'finish'], message: 'go' });
    const [echo, sum, structured, image] = toolResults(result);
    expect(echo).toBe('Echo: hello from the run');
    expect(sum).toMatch(/42/);
    expect(JSON.parse(structured!.split('\n')[0]!)).toEqual(
      expect.objectContaining({ temperature: expect.any(Number) }),
    );
    expect(image).toMatch(/\[image: image\/png, [\d.]+ (KiB|B|MiB)\]/);
    expect(image).not.toMatch(/iVBOR/); // never the base64 itself
    const offered = env.model.requests(model)[0]!.tools!.map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum', 'finish']));
  });
});
