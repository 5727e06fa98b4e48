import type { ChatMessage } from '../../src/shared/messages';
import { contextTokens, messageTokens, modelContext, summaryMessage } from '../../src/workflows/rules/model-context';

const ofTokens = (tokens: number): string => 'x'.repeat(tokens * 4);
const assistant = (iteration: number, id: string): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
  meta: { iteration },
});
const tool = (id: string, iteration: number, tokens = 600): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  content: ofTokens(tokens),
  meta: { iteration },
});

const messages: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'earlier' },
  { role: 'user', content: 'go' },
  assistant(1, 'c1'),
  tool('c1', 1),
  assistant(2, 'c2'),
  tool('c2', 2),
  assistant(3, 'c3'),
  tool('c3', 3),
];

describe('modelContext', () => {
  test('without compaction or masking: the transcript as it is', () => {
    expect(modelContext(messages, 2, undefined, undefined)).toEqual({
      messages,
      headLength: 0,
      tailStart: 0,
      masked: [],
    });
  });

  test("with a compaction: the caller's system messages it passed, the summary, then the messages after it", () => {
    const context = modelContext(
      messages,
      2,
      { throughIndex: 4, summary: 'read a', iteration: 3, count: 1 },
      undefined,
    );
    expect(context.messages).toEqual([messages[0], summaryMessage('read a'), ...messages.slice(5)]);
    expect(context).toMatchObject({ headLength: 2, tailStart: 5 });
  });

  test('masking applies to what remains, and reports only results the model would have seen', () => {
    const masking = { config: { keepIterations: 1, minTokens: 500 }, currentIteration: 3 };
    const whole = modelContext(messages, 2, undefined, masking);
    expect(whole.masked.map((entry) => entry.toolCallId)).toEqual(['c1', 'c2']);
    const compacted = modelContext(
      messages,
      2,
      { throughIndex: 4, summary: 'read a', iteration: 3, count: 1 },
      masking,
    );
    expect(compacted.masked).toEqual([{ toolCallId: 'c2', toolName: 'read_file', iteration: 2, tokens: 600 }]);
    expect(compacted.messages[3]).toMatchObject({
      role: 'tool',
      tool_call_id: 'c2',
      content: expect.stringMatching(/^\[Masked: read_file result from iteration 2/),
    });
    expect(compacted.messages[5]).toEqual(messages[8]);
  });

  test('a compaction past the end of a (malformed) transcript shows the summary alone', () => {
    expect(
      modelContext(messages, 0, { throughIndex: 50, summary: 's', iteration: 3, count: 1 }, undefined).messages,
    ).toEqual([summaryMessage('s')]);
  });
});

describe('token estimates', () => {
  test('count texts, tool call names and arguments, and the instructions, about four characters a token', () => {
    expect(messageTokens({ role: 'user', content: ofTokens(10) })).toBe(10);
    expect(messageTokens(assistant(1, 'c1'))).toBe(Math.ceil('read_file{"path":"a"}'.length / 4));
    expect(contextTokens([{ role: 'user', content: ofTokens(10) }], ofTokens(5))).toBe(15);
  });
});
