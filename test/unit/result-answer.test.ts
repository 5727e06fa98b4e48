import { type AgentResult } from '../../src/shared/agent-result';
import type { ChatMessage } from '../../src/shared/messages';
import { jsonBytes } from '../../src/shared/payload-limits';
import { agentWorkflowResultSchema, withAnswerOnce, withAnswerRestored } from '../../src/shared/result-answer';
import { toGeneratedMessages } from '../../src/workflows/rules/generated-messages';

/** A result as `finish-run.ts` builds it: `generatedMessages` from what the run added to `messages`. */
function resultOf(response: string, messages: ChatMessage[], inputMessageCount = 1): AgentResult {
  return {
    schemaVersion: 1,
    response,
    terminationReason: { type: 'complete' },
    iterations: 2,
    invocations: 2,
    consecutiveNudges: 0,
    restrictionInjections: 0,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
    messages,
    generatedMessages: toGeneratedMessages(messages.slice(inputMessageCount)),
  };
}

const callAndResult: ChatMessage[] = [
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ping', arguments: '{}' } }],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'pong' },
];

describe('withAnswerOnce', () => {
  test("a model's answer is carried once: its message and its chat-format copy are emptied and listed", () => {
    const answer = 'The answer. '.repeat(1000);
    const result = resultOf(answer, [
      { role: 'user', content: 'ask' },
      ...callAndResult,
      { role: 'assistant', content: answer },
    ]);

    const once = withAnswerOnce(result);

    expect(once.responseRepeatedAt).toEqual({ messages: [3], generatedMessages: [2] });
    expect(once.messages[3]).toEqual({ role: 'assistant', content: '' });
    expect(once.generatedMessages[2]).toEqual({ sender: 'ai', message: '' });
    expect(once.response).toBe(answer);
    // The answer weighs once in the carried result, where it weighed three times.
    expect(jsonBytes(result)).toBeGreaterThan(3 * answer.length);
    expect(jsonBytes(once)).toBeLessThan(answer.length + 1024);
    expect(agentWorkflowResultSchema.safeParse(once).success).toBe(true);
    // The result it was built from is left as it was.
    expect(result.messages[3]).toEqual({ role: 'assistant', content: answer });
  });

  test("a terminating tool's output, as the response, is emptied where the tool message and its chat-format copy repeat it", () => {
    const output = 'report '.repeat(500);
    const messages: ChatMessage[] = [
      { role: 'user', content: 'write it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_done', type: 'function', function: { name: 'done', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_done', content: output },
    ];

    const once = withAnswerOnce(resultOf(output, messages));

    expect(once.responseRepeatedAt).toEqual({ messages: [2], generatedMessages: [1] });
    expect(once.generatedMessages[1]).toEqual({ type: 'tool_response', tool_call_id: 'call_done', tool_output: '' });
  });

  test('a user message or a tool input that happens to equal the response is left as it is', () => {
    const result = resultOf(
      'same',
      [
        { role: 'user', content: 'same' },
        { role: 'assistant', content: 'other' },
      ],
      0,
    );
    expect(withAnswerOnce(result)).toBe(result);
  });

  test('an empty response, or one the messages do not repeat (they start after it), leaves the result as it is', () => {
    const empty = resultOf('', [
      { role: 'user', content: 'ask' },
      { role: 'assistant', content: '' },
    ]);
    expect(withAnswerOnce(empty)).toBe(empty);
    const notRepeated = resultOf('stopped before answering', [{ role: 'user', content: 'ask' }, ...callAndResult]);
    expect(withAnswerOnce(notRepeated)).toBe(notRepeated);
  });
});

describe('withAnswerRestored', () => {
  test('gives back the full result, deep-equal to the one before withAnswerOnce, without the field', () => {
    const answer = 'x'.repeat(100_000);
    const output = 'y'.repeat(50);
    const cases = [
      resultOf(answer, [{ role: 'user', content: 'ask' }, ...callAndResult, { role: 'assistant', content: answer }]),
      // The same text answered twice: both places are listed and both come back.
      resultOf(answer, [
        { role: 'user', content: 'ask' },
        { role: 'assistant', content: answer },
        { role: 'user', content: 'again' },
        { role: 'assistant', content: answer },
      ]),
      resultOf(output, [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'done', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: output },
      ]),
    ];
    for (const result of cases) {
      const restored = withAnswerRestored(withAnswerOnce(result));
      expect(restored).toEqual(result);
      expect(restored).not.toHaveProperty('responseRepeatedAt');
    }
  });

  test('a result that carries its answer in full (an older run, a small answer) is returned as it is', () => {
    const result = resultOf('fine', [
      { role: 'user', content: 'ask' },
      { role: 'assistant', content: 'fine' },
    ]);
    expect(withAnswerRestored(result)).toBe(result);
  });

  test('a result read through JSON, as Temporal hands it over, restores the same', () => {
    const answer = 'z'.repeat(40_000);
    const result = resultOf(answer, [
      { role: 'user', content: 'ask' },
      { role: 'assistant', content: answer },
    ]);
    const carried = JSON.parse(JSON.stringify(withAnswerOnce(result))) as unknown;
    expect(withAnswerRestored(agentWorkflowResultSchema.parse(carried))).toEqual(result);
  });
});
