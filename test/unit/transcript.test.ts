import type { AssistantMessage, ToolCall } from '../../src/shared/messages';
import type { ToolCallResult } from '../../src/shared/activity-types';
import { CANCELLED_RESULT, toolMessagesFor, withCallArguments } from '../../src/workflows/rules/transcript';

const toolCall = (id: string, name: string, argumentsText = `{"id":"${id}"}`): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: argumentsText },
});

const result = (content: string, isError = false): ToolCallResult => ({ content, isError, terminate: false });

describe('toolMessagesFor', () => {
  const first = toolCall('call-a', 'calculator');
  const second = toolCall('call-b', 'read_file');
  const third = toolCall('call-c', 'write_file');

  test("gives one tool message per call, in call order, with the results' content", () => {
    const results = new Map<string, ToolCallResult>([
      ['call-c', result('written')],
      ['call-a', result('4')],
      ['call-b', result('file text')],
    ]);

    expect(toolMessagesFor([first, second, third], results, 3)).toEqual([
      { role: 'tool', tool_call_id: 'call-a', content: '4', meta: { iteration: 3 } },
      { role: 'tool', tool_call_id: 'call-b', content: 'file text', meta: { iteration: 3 } },
      { role: 'tool', tool_call_id: 'call-c', content: 'written', meta: { iteration: 3 } },
    ]);
  });

  test('a call without a result gets the cancelled message', () => {
    const results = new Map<string, ToolCallResult>([['call-b', result('file text')]]);

    expect(toolMessagesFor([first, second, third], results, 1)).toEqual([
      { role: 'tool', tool_call_id: 'call-a', content: CANCELLED_RESULT, meta: { iteration: 1 } },
      { role: 'tool', tool_call_id: 'call-b', content: 'file text', meta: { iteration: 1 } },
      { role: 'tool', tool_call_id: 'call-c', content: CANCELLED_RESULT, meta: { iteration: 1 } },
    ]);
  });

  test('the cancelled message says the run was stopped', () => {
    expect(CANCELLED_RESULT).toBe('Cancelled: the run was stopped before this call finished.');
  });

  test('with no results every call is cancelled', () => {
    expect(toolMessagesFor([first, second], new Map(), 7)).toEqual([
      { role: 'tool', tool_call_id: 'call-a', content: CANCELLED_RESULT, meta: { iteration: 7 } },
      { role: 'tool', tool_call_id: 'call-b', content: CANCELLED_RESULT, meta: { iteration: 7 } },
    ]);
  });

  test('an error result is passed on as its content', () => {
    const results = new Map<string, ToolCallResult>([['call-a', result('Error: division by zero', true)]]);

    expect(toolMessagesFor([first], results, 2)).toEqual([
      { role: 'tool', tool_call_id: 'call-a', content: 'Error: division by zero', meta: { iteration: 2 } },
    ]);
  });

  test('an empty result content is kept, not replaced by the cancelled message', () => {
    const results = new Map<string, ToolCallResult>([['call-a', result('')]]);

    expect(toolMessagesFor([first], results, 2)).toEqual([
      { role: 'tool', tool_call_id: 'call-a', content: '', meta: { iteration: 2 } },
    ]);
  });

  test('results for calls not in the list are ignored', () => {
    const results = new Map<string, ToolCallResult>([
      ['call-a', result('4')],
      ['call-z', result('stray')],
    ]);

    expect(toolMessagesFor([first], results, 4)).toEqual([
      { role: 'tool', tool_call_id: 'call-a', content: '4', meta: { iteration: 4 } },
    ]);
  });

  test('no calls give no messages', () => {
    expect(toolMessagesFor([], new Map([['call-a', result('4')]]), 1)).toEqual([]);
  });

  test('iteration 0 is recorded as such', () => {
    expect(toolMessagesFor([first], new Map(), 0)).toEqual([
      { role: 'tool', tool_call_id: 'call-a', content: CANCELLED_RESULT, meta: { iteration: 0 } },
    ]);
  });
});

describe('withCallArguments', () => {
  const calculator = toolCall('call-a', 'calculator', '{"expression":"1+1"}');
  const writeFile = toolCall('call-b', 'write_file', '{"path":"danger.txt","content":"x"}');
  const readFile = toolCall('call-c', 'read_file', '{"path":"notes.txt"}');
  const message: AssistantMessage = {
    role: 'assistant',
    content: 'Let me do that.',
    tool_calls: [calculator, writeFile, readFile],
    meta: { iteration: 2 },
  };

  test('replaces the arguments of the named call only', () => {
    expect(withCallArguments(message, 'call-b', '{"path":"safe.txt","content":"x"}')).toEqual({
      role: 'assistant',
      content: 'Let me do that.',
      tool_calls: [
        calculator,
        {
          id: 'call-b',
          type: 'function',
          function: { name: 'write_file', arguments: '{"path":"safe.txt","content":"x"}' },
        },
        readFile,
      ],
      meta: { iteration: 2 },
    });
  });

  test('the other calls are the same objects', () => {
    const changed = withCallArguments(message, 'call-b', '{}');

    expect(changed.tool_calls?.[0]).toBe(calculator);
    expect(changed.tool_calls?.[2]).toBe(readFile);
  });

  test('does not modify the input message or its calls', () => {
    withCallArguments(message, 'call-b', '{"path":"safe.txt","content":"x"}');

    expect(message).toEqual({
      role: 'assistant',
      content: 'Let me do that.',
      tool_calls: [
        { id: 'call-a', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } },
        {
          id: 'call-b',
          type: 'function',
          function: { name: 'write_file', arguments: '{"path":"danger.txt","content":"x"}' },
        },
        { id: 'call-c', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } },
      ],
      meta: { iteration: 2 },
    });
  });

  test('returns new message, list, call and function objects', () => {
    const changed = withCallArguments(message, 'call-b', '{}');

    expect(changed).not.toBe(message);
    expect(changed.tool_calls).not.toBe(message.tool_calls);
    expect(changed.tool_calls?.[1]).not.toBe(writeFile);
    expect(changed.tool_calls?.[1]?.function).not.toBe(writeFile.function);
  });

  test('an unknown call id leaves every call as it was', () => {
    expect(withCallArguments(message, 'call-z', '{}')).toEqual(message);
  });

  test('a message without tool_calls gets an empty list', () => {
    const textOnly: AssistantMessage = { role: 'assistant', content: 'Done.' };

    expect(withCallArguments(textOnly, 'call-a', '{}')).toEqual({
      role: 'assistant',
      content: 'Done.',
      tool_calls: [],
    });
  });
});
