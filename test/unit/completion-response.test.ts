import { parseCompletion } from '../../src/activities/completion-response';

/** The problem parseCompletion names for `body`, failing the test when it parses. */
function problemOf(body: string): string {
  const parsed = parseCompletion(body);
  if (parsed.ok) throw new Error(`expected a problem, got ${JSON.stringify(parsed.completion)}`);
  return parsed.problem;
}

describe('parseCompletion', () => {
  test('a well-formed completion', () => {
    const body = JSON.stringify({
      model: 'gpt-x',
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });

    expect(parseCompletion(body)).toEqual({
      ok: true,
      completion: {
        content: null,
        toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"1+1"}' }],
        finishReason: 'tool_calls',
        model: 'gpt-x',
        usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
      },
    });
  });

  test('only the first choice is read: a malformed later one does not matter', () => {
    const parsed = parseCompletion(JSON.stringify({ choices: [{ message: { content: 'first' } }, null] }));

    expect(parsed.ok && parsed.completion.content).toBe('first');
  });

  test('a first choice that is null, whitespace, a JSON string, and an empty tool-call id', () => {
    expect(problemOf(JSON.stringify({ choices: [null] }))).toBe(
      'choices[0]: Invalid input: expected object, received null',
    );
    expect(problemOf('  \n ')).toBe('the body is empty');
    expect(problemOf('"just a string"')).toBe('the body is not a JSON object');
    const parsed = parseCompletion(
      JSON.stringify({
        choices: [{ message: { tool_calls: [{ id: '', function: { name: 'finish', arguments: null } }] } }],
      }),
    );
    expect(parsed.ok && parsed.completion.toolCalls).toEqual([{ name: 'finish', arguments: '' }]);
  });

  test('usage that is absent or null is left out, fractional counts are a problem', () => {
    const parsed = parseCompletion(JSON.stringify({ choices: [{ message: { content: 'x' } }], usage: null }));
    expect(parsed.ok && parsed.completion.usage).toEqual({});
    expect(
      problemOf(JSON.stringify({ choices: [{ message: { content: 'x' } }], usage: { total_tokens: 1.5 } })),
    ).toMatch(/^usage\.total_tokens: /);
  });
});
