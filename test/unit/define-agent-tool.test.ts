import { z } from 'zod';
import { defineAgentTool } from '../../src/tools/define-agent-tool';
import { defineTool } from '../../src/tools/define-tool';
import { createToolRegistry } from '../../src/tools/tool-registry';

const ping = defineTool({
  name: 'ping',
  description: 'Ping.',
  parameters: z.object({ host: z.string() }),
  execute: () => 'pong',
});

describe('defineAgentTool', () => {
  test("the catalog describes a nested agent with what the workflow starts it with; other tools' descriptions are unchanged", () => {
    const researcher = defineAgentTool({
      name: 'researcher',
      description: 'Researches.',
      instructions: 'You research.',
      tools: ['ping', 'finish'],
      model: 'small-model',
      terminatingToolIds: ['finish'],
      maxInvocations: 8,
    });
    const [plain, described] = createToolRegistry([researcher, ping]).describe(); // sorted by name
    expect(described).toEqual({
      name: 'researcher',
      description: 'Researches.',
      parameters: expect.objectContaining({ type: 'object', required: ['task'] }),
      terminating: false,
      needsApproval: 'never',
      agent: {
        kind: 'agent',
        instructions: 'You research.',
        tools: ['ping', 'finish'],
        model: 'small-model',
        terminatingToolIds: ['finish'],
        maxInvocations: 8,
      },
    });
    expect(plain).not.toHaveProperty('agent');
  });

  test('a definition that cannot work is refused when the worker is built, naming what is wrong', () => {
    expect(() => defineAgentTool({ name: 'bad name', description: 'x', instructions: 'x', tools: [] })).toThrow(
      /Tool name "bad name" is not valid/,
    );
    expect(() =>
      defineAgentTool({
        name: 'a',
        description: 'x',
        instructions: 'x',
        tools: ['ping'],
        terminatingToolIds: ['finish'],
      }),
    ).toThrow('Agent tool "a": terminatingToolIds names finish, which are not among its tools.');
    expect(() =>
      defineAgentTool({ name: 'a', description: 'x', instructions: 'x', tools: [], maxInvocations: 0 }),
    ).toThrow(/maxInvocations must be a positive whole number/);
  });
});
