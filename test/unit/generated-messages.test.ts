import type { ChatMessage } from '../../src/shared/messages';
import { toGeneratedMessages } from '../../src/workflows/rules/generated-messages';

const assistantCall = (id: string, name: string, argumentText: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: argumentText } }],
});

describe('toGeneratedMessages', () => {
  test('an empty conversation gives no messages', () => {
    expect(toGeneratedMessages([])).toEqual([]);
  });

  test('a user message becomes a human message', () => {
    expect(toGeneratedMessages([{ role: 'user', content: 'Hi', name: 'ada' }])).toEqual([
      { sender: 'human', message: 'Hi' },
    ]);
  });

  test('assistant text becomes an ai message', () => {
    expect(toGeneratedMessages([{ role: 'assistant', content: 'Hello!' }])).toEqual([
      { sender: 'ai', message: 'Hello!' },
    ]);
  });

  test('assistant messages with null or empty content add no ai message', () => {
    const messages: ChatMessage[] = [
      { role: 'assistant', content: null },
      { role: 'assistant', content: '' },
    ];

    expect(toGeneratedMessages(messages)).toEqual([]);
  });

  test('system, developer and injected nudge messages are left out', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: 'Internal note.' },
      { role: 'system', content: 'Call a terminating tool.', meta: { injected: 'nudge', iteration: 2 } },
    ];

    expect(toGeneratedMessages(messages)).toEqual([]);
  });

  test('a tool call carries its id, name and parsed JSON arguments', () => {
    expect(toGeneratedMessages([assistantCall('call_1', 'calculator', '{"expression":"6*7"}')])).toEqual([
      { type: 'tool_call', tool_call_id: 'call_1', tool_name: 'calculator', tool_input: { expression: '6*7' } },
    ]);
  });

  test('empty or blank arguments become an empty object', () => {
    const messages = [assistantCall('call_1', 'list_files', ''), assistantCall('call_2', 'list_files', '  \n')];

    expect(toGeneratedMessages(messages)).toEqual([
      { type: 'tool_call', tool_call_id: 'call_1', tool_name: 'list_files', tool_input: {} },
      { type: 'tool_call', tool_call_id: 'call_2', tool_name: 'list_files', tool_input: {} },
    ]);
  });

  test('arguments that are not JSON are kept as raw text', () => {
    expect(toGeneratedMessages([assistantCall('call_1', 'calculator', '{expression: 6*7')])).toEqual([
      { type: 'tool_call', tool_call_id: 'call_1', tool_name: 'calculator', tool_input: '{expression: 6*7' },
    ]);
  });

  test('JSON that is not an object is parsed as it is', () => {
    expect(toGeneratedMessages([assistantCall('call_1', 'calculator', '[1, 2]')])).toEqual([
      { type: 'tool_call', tool_call_id: 'call_1', tool_name: 'calculator', tool_input: [1, 2] },
    ]);
  });

  test('assistant text comes before its tool calls, which keep their order', () => {
    const message: ChatMessage = {
      role: 'assistant',
      content: 'Checking two things.',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.md"}' } },
        { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.md"}' } },
      ],
    };

    expect(toGeneratedMessages([message])).toEqual([
      { sender: 'ai', message: 'Checking two things.' },
      { type: 'tool_call', tool_call_id: 'call_a', tool_name: 'read_file', tool_input: { path: 'a.md' } },
      { type: 'tool_call', tool_call_id: 'call_b', tool_name: 'read_file', tool_input: { path: 'b.md' } },
    ]);
  });

  test('a tool message becomes a tool response with its raw content', () => {
    expect(toGeneratedMessages([{ role: 'tool', tool_call_id: 'call_1', content: '{"value":42}' }])).toEqual([
      { type: 'tool_response', tool_call_id: 'call_1', tool_output: '{"value":42}' },
    ]);
  });

  test('a whole exchange keeps the conversation order', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 6*7?' },
      assistantCall('call_1', 'calculator', '{"expression":"6*7"}'),
      { role: 'tool', tool_call_id: 'call_1', content: '42' },
      { role: 'assistant', content: 'It is 42.' },
    ];

    expect(toGeneratedMessages(messages)).toEqual([
      { sender: 'human', message: 'What is 6*7?' },
      { type: 'tool_call', tool_call_id: 'call_1', tool_name: 'calculator', tool_input: { expression: '6*7' } },
      { type: 'tool_response', tool_call_id: 'call_1', tool_output: '42' },
      { sender: 'ai', message: 'It is 42.' },
    ]);
  });
});
