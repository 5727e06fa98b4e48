import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../src/tools/define-tool';
import { callNeedsApproval, createToolRegistry } from '../../src/tools/tool-registry';

/** A tool whose only interesting parts are its name and parameters. */
function sampleTool(name: string, parameters: z.ZodType = z.object({})): ToolDefinition {
  return defineTool({ name, description: `The ${name} tool.`, parameters, execute: () => 'ok' });
}

describe('createToolRegistry descriptions', () => {
  test('derives the JSON schema from zod, with defaulted fields optional and $schema removed', () => {
    const tool = defineTool({
      name: 'search',
      description: 'Search the notes.',
      parameters: z.object({
        query: z.string().min(1).describe('What to look for'),
        limit: z.number().int().default(10),
        mode: z.enum(['fast', 'thorough']).optional(),
      }),
      execute: () => 'ok',
    });

    const [description] = createToolRegistry([tool]).describe();

    expect(description?.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to look for' },
        limit: { type: 'integer', default: 10, minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        mode: { type: 'string', enum: ['fast', 'thorough'] },
      },
      required: ['query'],
    });
    expect(description?.parameters).not.toHaveProperty('$schema');
  });

  test('an object without fields gives an object schema with no required list', () => {
    const [description] = createToolRegistry([sampleTool('ping')]).describe();

    expect(description?.parameters).toEqual({ type: 'object', properties: {} });
  });

  test('a tool is not terminating, needs no approval and has no timeout unless it says so', () => {
    expect(createToolRegistry([sampleTool('ping')]).describe()).toEqual([
      {
        name: 'ping',
        description: 'The ping tool.',
        parameters: { type: 'object', properties: {} },
        terminating: false,
        needsApproval: 'never',
      },
    ]);
  });

  test('terminating and a duration timeout are carried over, the timeout in milliseconds', () => {
    const tool = defineTool({
      name: 'finish',
      description: 'End the run.',
      parameters: z.object({ answer: z.string() }),
      execute: () => 'done',
      terminating: true,
      timeout: '30 seconds',
    });

    const [description] = createToolRegistry([tool]).describe();

    expect(description?.terminating).toBe(true);
    expect(description?.timeoutMs).toBe(30_000);
  });

  test('a numeric timeout is taken as milliseconds', () => {
    const tool = defineTool({ ...sampleTool('slow'), timeout: 1500 });

    expect(createToolRegistry([tool]).describe()[0]?.timeoutMs).toBe(1500);
  });

  test('describe and names are sorted by name', () => {
    const registry = createToolRegistry([sampleTool('write_file'), sampleTool('calculator'), sampleTool('list_files')]);

    expect(registry.names()).toEqual(['calculator', 'list_files', 'write_file']);
    expect(registry.describe().map((description) => description.name)).toEqual([
      'calculator',
      'list_files',
      'write_file',
    ]);
  });

  test('get returns the registered definition and undefined for unknown names', () => {
    const calculator = sampleTool('calculator');
    const registry = createToolRegistry([calculator]);

    expect(registry.get('calculator')).toBe(calculator);
    expect(registry.get('abacus')).toBeUndefined();
  });

  test('an empty registry has no tools', () => {
    const registry = createToolRegistry([]);

    expect(registry.names()).toEqual([]);
    expect(registry.describe()).toEqual([]);
  });
});

describe('createToolRegistry rejections', () => {
  test('two tools with one name are rejected', () => {
    expect(() => createToolRegistry([sampleTool('calculator'), sampleTool('calculator')])).toThrow(
      new TypeError('Two tools are registered as "calculator"; tool names must be unique.'),
    );
  });

  test.each([
    ['a string', z.string()],
    ['an array', z.array(z.string())],
    ['a union of objects', z.union([z.object({ a: z.string() }), z.object({ b: z.string() })])],
  ])('parameters that are %s are rejected', (_kind, parameters) => {
    expect(() => createToolRegistry([sampleTool('odd', parameters)])).toThrow(
      new TypeError('Tool "odd": parameters must be a z.object(...); providers expect an object of arguments.'),
    );
  });

  test('parameters that JSON Schema cannot express are rejected with the reason', () => {
    expect(() => createToolRegistry([sampleTool('schedule', z.object({ when: z.date() }))])).toThrow(
      new TypeError(
        'Tool "schedule": its parameters cannot be expressed as JSON Schema (Date cannot be represented in JSON Schema). ' +
          'Use plain zod types (objects, strings, numbers, enums, arrays) without transforms.',
      ),
    );
  });

  test('rejects a bad tool even when the other tools are fine', () => {
    expect(() => createToolRegistry([sampleTool('fine'), sampleTool('odd', z.string())])).toThrow(/Tool "odd"/);
  });
});

describe('defineTool', () => {
  test('returns the definition unchanged', () => {
    const definition: ToolDefinition = {
      name: 'echo',
      description: 'Echo the text back.',
      parameters: z.object({ text: z.string() }),
      execute: () => 'ok',
    };

    expect(defineTool(definition)).toBe(definition);
  });

  test.each(['a', 'calculator', 'read-file_2', 'A'.repeat(64)])('accepts the name %j', (name) => {
    expect(defineTool({ name, description: 'ok', parameters: z.object({}), execute: () => 'ok' }).name).toBe(name);
  });

  test.each(['', 'read file', 'read.file', 'tool/name', 'héllo', 'A'.repeat(65)])('rejects the name %j', (name) => {
    expect(() => defineTool({ name, description: 'ok', parameters: z.object({}), execute: () => 'ok' })).toThrow(
      new TypeError(
        `Tool name "${name}" is not valid: use 1 to 64 letters, digits, "_" or "-" (providers reject others).`,
      ),
    );
  });

  test.each(['', '   \n'])('rejects the description %j', (description) => {
    expect(() => defineTool({ name: 'echo', description, parameters: z.object({}), execute: () => 'ok' })).toThrow(
      new TypeError('Tool "echo" needs a description: the model decides from it when to call the tool.'),
    );
  });
});

describe('needsApproval', () => {
  const transfer = (needsApproval?: boolean | ((args: { amount: number }) => boolean)) =>
    defineTool({
      name: 'transfer',
      description: 'Transfer money.',
      parameters: z.object({ amount: z.number().positive() }),
      ...(needsApproval === undefined ? {} : { needsApproval }),
      execute: () => 'ok',
    });

  test('is described as always, never or dynamic', () => {
    expect(createToolRegistry([transfer(true)]).describe()[0]?.needsApproval).toBe('always');
    expect(createToolRegistry([transfer(false)]).describe()[0]?.needsApproval).toBe('never');
    expect(createToolRegistry([transfer()]).describe()[0]?.needsApproval).toBe('never');
    expect(createToolRegistry([transfer(({ amount }) => amount > 100)]).describe()[0]?.needsApproval).toBe('dynamic');
  });

  test('a function sees the validated arguments; arguments the tool would refuse need no approval', () => {
    const tool = transfer(({ amount }) => amount > 100);
    expect(callNeedsApproval(tool, '{"amount": 500}')).toBe(true);
    expect(callNeedsApproval(tool, '{"amount": 50}')).toBe(false);
    expect(callNeedsApproval(tool, '{"amount": -5}')).toBe(false);
    expect(callNeedsApproval(tool, '{"amount": ')).toBe(false);
    expect(callNeedsApproval(transfer(true), 'not json')).toBe(true);
  });
});
