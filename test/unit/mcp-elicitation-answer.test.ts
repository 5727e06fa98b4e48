import { checkToolsAllowed, toolsNamedBy } from '../../src/api/tool-allowance';
import { elicitContentProblem } from '../../src/shared/mcp-elicitation-answer';
import { cappedSamplingTokens } from '../../src/shared/mcp-sampling';

const form = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer' },
    ok: { type: 'boolean' },
    size: { type: 'string', enum: ['s', 'm'] },
    tags: { type: 'array' },
  },
  required: ['name'],
};
const accept = (content: Record<string, string | number | boolean | string[]>) => ({
  action: 'accept' as const,
  content,
});

describe('elicitContentProblem', () => {
  test('accepts content that fills the form', () => {
    expect(elicitContentProblem(accept({ name: 'Ada', age: 36, ok: true, size: 'm', tags: ['a'] }), form)).toBe(
      undefined,
    );
  });

  test('names a missing required field, an unknown field, a wrong type and a value outside the enum', () => {
    expect(elicitContentProblem(accept({ age: 3 }), form)).toBe('the form needs "name"');
    expect(elicitContentProblem(accept({ name: 'A', nick: 'x' }), form)).toMatch(/^the form has no field "nick"/);
    expect(elicitContentProblem(accept({ name: 'A', age: 3.5 }), form)).toBe('"age" takes an integer');
    expect(elicitContentProblem(accept({ name: 'A', ok: 'yes' }), form)).toBe('"ok" takes true or false');
    expect(elicitContentProblem(accept({ name: 'A', size: 'xl' }), form)).toBe('"size" takes one of "s", "m"');
    expect(elicitContentProblem(accept({ name: 'A', tags: 'a' }), form)).toBe('"tags" takes a list of strings');
  });

  test('a form without fields takes an empty accept only', () => {
    expect(elicitContentProblem(accept({}), { type: 'object', properties: {} })).toBe(undefined);
    expect(elicitContentProblem(accept({ x: 1 }), { type: 'object' })).toMatch(/no field "x" \(its fields: none\)/);
  });
});

describe('checkToolsAllowed', () => {
  test('passes named tools and tools of an allowed server; every tool when unset', () => {
    expect(() => checkToolsAllowed(['calculator', 'files__read'], ['calculator', 'files__*'])).not.toThrow();
    expect(() => checkToolsAllowed(['files__*'], ['files__*'])).not.toThrow();
    expect(() => checkToolsAllowed(['write_file'], undefined)).not.toThrow();
  });

  test('refuses other tools, and a wildcard wider than what is allowed, naming them', () => {
    expect(() => checkToolsAllowed(['write_file', 'calculator'], ['calculator'])).toThrow(/"write_file"/);
    expect(() => checkToolsAllowed(['files__*'], ['files__read'])).toThrow(/"files__\*"/);
  });

  test("reads a run input's tools and terminating tools, leniently", () => {
    expect(toolsNamedBy({ tools: ['a', 3], terminating: { toolIds: ['b'] } })).toEqual(['a', 'b']);
    expect(toolsNamedBy('nonsense')).toEqual([]);
  });
});

test("cappedSamplingTokens lowers the server's maxTokens to the cap, and sends the cap when it gives none", () => {
  expect(cappedSamplingTokens(20, 1024)).toBe(20);
  expect(cappedSamplingTokens(5000, 1024)).toBe(1024);
  expect(cappedSamplingTokens(undefined, 512)).toBe(512);
  expect(cappedSamplingTokens(0, 512)).toBe(512);
});
