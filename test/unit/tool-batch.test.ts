import type { AssistantMessage, ToolCall } from '../../src/shared/messages';
import { keepToolCalls, planToolBatch } from '../../src/workflows/rules/tool-batch';

const toolCall = (id: string, name: string): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: `{"id":"${id}"}` },
});

const TERMINATING = new Set(['finish', 'task_complete']);

describe('planToolBatch', () => {
  test('with no terminating call every call leads and nothing is dropped', () => {
    const calls = [toolCall('a', 'calculator'), toolCall('b', 'read_file')];

    const plan = planToolBatch(calls, TERMINATING);

    expect(plan).toEqual({ leading: calls, dropped: [] });
    expect(plan.terminating).toBeUndefined();
  });

  test('the leading list is a copy, not the caller array', () => {
    const calls = [toolCall('a', 'calculator')];

    const plan = planToolBatch(calls, TERMINATING);

    expect(plan.leading).not.toBe(calls);
  });

  test('an empty batch plans nothing', () => {
    expect(planToolBatch([], TERMINATING)).toEqual({ leading: [], dropped: [] });
  });

  test('an empty terminating set never terminates', () => {
    const calls = [toolCall('a', 'finish')];

    expect(planToolBatch(calls, new Set())).toEqual({ leading: calls, dropped: [] });
  });

  test('a terminating call first leaves nothing leading and drops the rest', () => {
    const finish = toolCall('a', 'finish');
    const later = [toolCall('b', 'calculator'), toolCall('c', 'write_file')];

    expect(planToolBatch([finish, ...later], TERMINATING)).toEqual({
      leading: [],
      terminating: finish,
      dropped: later,
    });
  });

  test('a terminating call last keeps every earlier call leading and drops nothing', () => {
    const earlier = [toolCall('a', 'calculator'), toolCall('b', 'read_file')];
    const finish = toolCall('c', 'finish');

    expect(planToolBatch([...earlier, finish], TERMINATING)).toEqual({
      leading: earlier,
      terminating: finish,
      dropped: [],
    });
  });

  test('a terminating call in the middle splits the batch around it', () => {
    const before = toolCall('a', 'calculator');
    const finish = toolCall('b', 'task_complete');
    const after = toolCall('c', 'read_file');

    expect(planToolBatch([before, finish, after], TERMINATING)).toEqual({
      leading: [before],
      terminating: finish,
      dropped: [after],
    });
  });

  test('of two terminating calls the first wins and the second is dropped', () => {
    const first = toolCall('a', 'task_complete');
    const second = toolCall('b', 'finish');

    const plan = planToolBatch([first, second], TERMINATING);

    expect(plan.terminating).toBe(first);
    expect(plan.leading).toEqual([]);
    expect(plan.dropped).toEqual([second]);
  });

  test('tools are matched by function name, not by call id', () => {
    const calls = [toolCall('finish', 'calculator')];

    expect(planToolBatch(calls, TERMINATING).terminating).toBeUndefined();
  });
});

describe('keepToolCalls', () => {
  const first = toolCall('a', 'calculator');
  const second = toolCall('b', 'finish');
  const third = toolCall('c', 'read_file');
  const message: AssistantMessage = {
    role: 'assistant',
    content: 'Working on it.',
    tool_calls: [first, second, third],
    meta: { iteration: 3 },
  };

  test('keeps only the kept calls, in the message order, and every other field', () => {
    expect(keepToolCalls(message, [second, first])).toEqual({
      role: 'assistant',
      content: 'Working on it.',
      tool_calls: [first, second],
      meta: { iteration: 3 },
    });
  });

  test('matches kept calls by id', () => {
    const sameIdOtherArguments: ToolCall = { ...third, function: { name: 'read_file', arguments: '{}' } };

    expect(keepToolCalls(message, [sameIdOtherArguments]).tool_calls).toEqual([third]);
  });

  test('keeping nothing leaves an empty tool_calls list', () => {
    expect(keepToolCalls(message, []).tool_calls).toEqual([]);
  });

  test('a message without tool_calls gets an empty list', () => {
    const textOnly: AssistantMessage = { role: 'assistant', content: 'Done.' };

    expect(keepToolCalls(textOnly, [first])).toEqual({ role: 'assistant', content: 'Done.', tool_calls: [] });
  });

  test('does not modify the original message', () => {
    keepToolCalls(message, [first]);

    expect(message.tool_calls).toEqual([first, second, third]);
  });
});
