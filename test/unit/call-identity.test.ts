import type { AssistantMessage, ChatMessage } from '../../src/shared/messages';
import {
  flaggedCalls,
  messagesForModel,
  runnerCallId,
  withRunnerCallIds,
} from '../../src/workflows/rules/call-identity';

function answer(...ids: string[]): AssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: ids.map((id, index) => ({
      id,
      type: 'function',
      function: { name: 'write_file', arguments: `{"n":${index}}` },
    })),
  };
}

function result(id: string, content: string): ChatMessage {
  return { role: 'tool', tool_call_id: id, content };
}

describe('runner call ids', () => {
  test('are unique per model call and position, and readable', () => {
    expect(runnerCallId(1, 0)).toBe('call-1-1');
    expect(runnerCallId(12, 2)).toBe('call-12-3');
    const ids = new Set([1, 2, 3].flatMap((iteration) => [0, 1, 2].map((index) => runnerCallId(iteration, index))));
    expect(ids.size).toBe(9);
  });

  test('replace the model ids, which are kept beside them', () => {
    const recorded = withRunnerCallIds(answer('call_0', 'call_0'), 4);

    expect(recorded.tool_calls?.map((call) => call.id)).toEqual(['call-4-1', 'call-4-2']);
    expect(recorded.meta?.modelCallIds).toEqual({ 'call-4-1': 'call_0', 'call-4-2': 'call_0' });
    expect(recorded.tool_calls?.map((call) => call.function.arguments)).toEqual(['{"n":0}', '{"n":1}']);
  });

  test('leave an answer without calls as it is', () => {
    const text: AssistantMessage = { role: 'assistant', content: 'hello' };
    expect(withRunnerCallIds(text, 1)).toBe(text);
  });
});

describe('messagesForModel', () => {
  test('shows each call under the model id when it is the first to use it', () => {
    const first = withRunnerCallIds(answer('call_abc'), 1);
    const messages = messagesForModel([{ role: 'user', content: 'go' }, first, result('call-1-1', 'ok')]);

    expect((messages[1] as AssistantMessage).tool_calls?.[0]?.id).toBe('call_abc');
    expect(messages[2]).toMatchObject({ tool_call_id: 'call_abc', content: 'ok' });
  });

  test('a model id reused in one answer or on a later turn is shown as the runner id, results following', () => {
    const messages = messagesForModel([
      withRunnerCallIds(answer('call_0', 'call_0'), 1),
      result('call-1-1', 'first'),
      result('call-1-2', 'second'),
      withRunnerCallIds(answer('call_0'), 2),
      result('call-2-1', 'third'),
    ]);

    const ids = messages.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [],
    );
    expect(ids).toEqual(['call_0', 'call-1-2', 'call-2-1']);
    expect(
      messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id, message.content]),
    ).toEqual([
      ['call_0', 'first'],
      ['call-1-2', 'second'],
      ['call-2-1', 'third'],
    ]);
  });

  test('a caller conversation that already uses an id keeps it; the run shows its own call another way', () => {
    const messages = messagesForModel([
      answer('call-1-1'),
      result('call-1-1', 'earlier turn'),
      withRunnerCallIds(answer('call-1-1'), 1),
      result('call-1-1', 'this run'),
    ]);

    expect((messages[0] as AssistantMessage).tool_calls?.[0]?.id).toBe('call-1-1');
    expect(messages[1]).toMatchObject({ tool_call_id: 'call-1-1', content: 'earlier turn' });
    expect((messages[2] as AssistantMessage).tool_calls?.[0]?.id).toBe('call-1-1-2');
    expect(messages[3]).toMatchObject({ tool_call_id: 'call-1-1-2', content: 'this run' });
  });

  test('messages that need no change are the same objects', () => {
    const input: ChatMessage[] = [{ role: 'user', content: 'hi' }, answer('a'), result('a', 'x')];
    const shown = messagesForModel(input);
    shown.forEach((message, index) => expect(message).toBe(input[index]));
  });

  test('an id named like an Object.prototype member is only an id', () => {
    const messages = messagesForModel([answer('constructor'), result('constructor', 'x')]);
    expect((messages[0] as AssistantMessage).tool_calls?.[0]?.id).toBe('constructor');
  });
});

describe('flaggedCalls', () => {
  test("maps the activity's model ids to runner ids; a reused id flags every call that has it", () => {
    const recorded = withRunnerCallIds(answer('call_0', 'call_0', 'call_1'), 3);
    expect([...flaggedCalls(recorded, ['call_0'])]).toEqual(['call-3-1', 'call-3-2']);
    expect([...flaggedCalls(recorded, ['call_1'])]).toEqual(['call-3-3']);
  });

  test('a run keyed by model ids (before runner ids) flags by those ids', () => {
    expect([...flaggedCalls(answer('call_a', 'call_b'), ['call_b'])]).toEqual(['call_b']);
  });
});

describe('messagesForModel on a transcript from before runner ids', () => {
  test('two calls of one answer named alike are shown apart, each result answering its own call in order', () => {
    const messages = messagesForModel([
      answer('call_0', 'call_0'),
      result('call_0', 'first'),
      result('call_0', 'second'),
    ]);

    expect((messages[0] as AssistantMessage).tool_calls?.map((call) => call.id)).toEqual(['call_0', 'call_0-2']);
    expect(
      messages.slice(1).map((message) => (message.role === 'tool' ? [message.tool_call_id, message.content] : [])),
    ).toEqual([
      ['call_0', 'first'],
      ['call_0-2', 'second'],
    ]);
  });
});
