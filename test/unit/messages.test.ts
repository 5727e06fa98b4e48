import { addUsage, chatMessageSchema, ZERO_USAGE } from '../../src/shared/messages';

describe('addUsage', () => {
  test('adds each count', () => {
    expect(
      addUsage(
        { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
        { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
      ),
    ).toEqual({ promptTokens: 13, completionTokens: 7, totalTokens: 20 });
  });

  test('zero usage is neutral', () => {
    const usage = { promptTokens: 4, completionTokens: 1, totalTokens: 5 };

    expect(addUsage(ZERO_USAGE, usage)).toEqual(usage);
    expect(ZERO_USAGE).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });
});

describe('chatMessageSchema', () => {
  test('accepts an assistant message with null content and tool calls', () => {
    const message = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '{}' } }],
    };

    expect(chatMessageSchema.parse(message)).toEqual(message);
  });

  test('keeps runner meta', () => {
    const message = { role: 'system', content: 'nudge', meta: { injected: 'nudge', iteration: 2 } };

    expect(chatMessageSchema.parse(message)).toEqual(message);
  });

  test('rejects null content on a user message', () => {
    expect(chatMessageSchema.safeParse({ role: 'user', content: null }).success).toBe(false);
  });

  test('rejects a tool message without a call id', () => {
    expect(chatMessageSchema.safeParse({ role: 'tool', tool_call_id: '', content: 'x' }).success).toBe(false);
  });

  test('rejects a tool call that is not a function call', () => {
    const message = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'custom', function: { name: 'calculator', arguments: '{}' } }],
    };

    expect(chatMessageSchema.safeParse(message).success).toBe(false);
  });

  test('rejects an unknown injected reason', () => {
    expect(chatMessageSchema.safeParse({ role: 'system', content: 'x', meta: { injected: 'whim' } }).success).toBe(
      false,
    );
  });
});
