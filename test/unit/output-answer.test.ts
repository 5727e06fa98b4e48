import type { AssistantMessage } from '../../src/shared/messages';
import { decideOutputAnswer, decideToolOutput, type OutputPolicy } from '../../src/workflows/rules/output-answer';
import { answerFormat, answerTools } from '../../src/workflows/rules/output-request';

const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
const tool: OutputPolicy = { schema, mode: 'tool', name: 'final_answer', wrapped: false, maxCorrections: 2 };
const text: OutputPolicy = { ...tool, mode: 'response_format' };
const call = (name: string, args: string, id = 'c1') => ({
  id,
  type: 'function' as const,
  function: { name, arguments: args },
});
const withCalls = (...calls: ReturnType<typeof call>[]): AssistantMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: calls,
});
const saying = (content: string): AssistantMessage => ({ role: 'assistant', content });

describe('decideOutputAnswer', () => {
  test('tool mode: a lone valid call is the answer', () => {
    expect(decideOutputAnswer(withCalls(call('final_answer', '{"n":1}')), 0, tool)).toEqual({
      kind: 'accept',
      value: { n: 1 },
      callId: 'c1',
    });
  });

  test('tool mode: an invalid call is corrected while corrections last, then is invalid', () => {
    const bad = withCalls(call('final_answer', '{"n":"one"}'));
    expect(decideOutputAnswer(bad, 0, tool)).toMatchObject({ kind: 'correct', corrections: 1, callId: 'c1' });
    expect(decideOutputAnswer(bad, 1, tool)).toMatchObject({ kind: 'correct', corrections: 2 });
    expect(decideOutputAnswer(bad, 2, tool)).toMatchObject({
      kind: 'invalid',
      corrections: 3,
      problems: ['#/n: Instance type "string" is invalid. Expected "integer".'],
    });
  });

  test('tool mode: a text answer is a correction that names the tool; other calls are not an answer', () => {
    expect(decideOutputAnswer(saying('{"n":1}'), 0, tool)).toMatchObject({
      kind: 'correct',
      source: 'text',
      message: expect.stringContaining('"final_answer"'),
    });
    expect(decideOutputAnswer(withCalls(call('calculator', '{}')), 0, tool)).toEqual({ kind: 'not_an_answer' });
    const both = withCalls(call('calculator', '{}'), call('final_answer', '{"n":1}', 'c2'));
    expect(decideOutputAnswer(both, 0, tool)).toEqual({ kind: 'not_an_answer' });
  });

  test('response_format mode: the text is the answer; a call of a tool named like the answer tool is a call', () => {
    expect(decideOutputAnswer(saying('{"n":2}'), 0, text)).toEqual({ kind: 'accept', value: { n: 2 } });
    expect(decideOutputAnswer(saying('n is 2'), 0, text)).toMatchObject({ kind: 'correct', source: 'text' });
    expect(decideOutputAnswer(withCalls(call('final_answer', '{"n":1}')), 0, text)).toEqual({ kind: 'not_an_answer' });
  });

  test("a terminating tool's output is checked unwrapped, and a rejection says the run goes on", () => {
    expect(decideToolOutput('task_completion', '{"n":3}', 0, tool)).toEqual({ kind: 'accept', value: { n: 3 } });
    expect(decideToolOutput('task_completion', 'done', 0, tool)).toMatchObject({
      kind: 'correct',
      source: 'tool_output',
      message: expect.stringContaining('The run goes on: give your final answer by calling "final_answer"'),
    });
  });
});

describe('what a model call asks for', () => {
  const output = {
    schema: { $schema: 'x', ...schema },
    name: 'final_answer',
    mode: 'tool' as const,
    maxCorrections: 3,
  };
  test('tool mode offers the answer tool, without $schema; response_format mode asks for json_schema', () => {
    expect(answerTools({ output })).toEqual([
      { name: 'final_answer', description: expect.any(String), parameters: schema },
    ]);
    expect(answerFormat({ output })).toBeUndefined();
    const asFormat = { ...output, mode: 'response_format' as const };
    expect(answerTools({ output: asFormat })).toEqual([]);
    expect(answerFormat({ output: asFormat })).toEqual({
      type: 'json_schema',
      json_schema: { name: 'final_answer', schema },
    });
    expect(answerTools({})).toEqual([]);
    expect(answerFormat({})).toBeUndefined();
  });
});
