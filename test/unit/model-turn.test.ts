import type { AssistantMessage, ToolCall } from '../../src/shared';
import { decideModelTurn } from '../../src/workflows/model-turn';

const textAnswer = (content: string | null): AssistantMessage => ({ role: 'assistant', content });
const calculatorCall: ToolCall = {
  id: 'call_1',
  type: 'function',
  function: { name: 'calculator', arguments: '{"expression":"6*7"}' },
};

describe('decideModelTurn without a nudge policy', () => {
  test('text completes the run with that text', () => {
    expect(decideModelTurn(textAnswer('Paris.'), 0, undefined)).toEqual({ kind: 'final_output', text: 'Paris.' });
  });

  test('null content completes the run with an empty text', () => {
    expect(decideModelTurn(textAnswer(null), 0, undefined)).toEqual({ kind: 'final_output', text: '' });
  });

  test('an empty tool_calls list counts as no tool calls', () => {
    const message: AssistantMessage = { role: 'assistant', content: 'Done.', tool_calls: [] };

    expect(decideModelTurn(message, 0, undefined)).toEqual({ kind: 'final_output', text: 'Done.' });
  });

  test('earlier nudges do not matter without a policy', () => {
    expect(decideModelTurn(textAnswer('Done.'), 7, undefined)).toEqual({ kind: 'final_output', text: 'Done.' });
  });
});

describe('decideModelTurn tool calls', () => {
  test('tool calls are run, with or without text', () => {
    const message: AssistantMessage = { role: 'assistant', content: 'Let me compute.', tool_calls: [calculatorCall] };

    expect(decideModelTurn(message, 0, undefined)).toEqual({ kind: 'run_tools', calls: [calculatorCall] });
  });

  test('tool calls are run in an autonomous run even past the nudge limit', () => {
    const message: AssistantMessage = { role: 'assistant', content: null, tool_calls: [calculatorCall] };

    expect(decideModelTurn(message, 5, { consecutiveNudges: 1 })).toEqual({ kind: 'run_tools', calls: [calculatorCall] });
  });
});

describe('decideModelTurn nudge counting', () => {
  const policy = { consecutiveNudges: 1 };

  test('with consecutiveNudges 1 the first text answer is nudged with count 1', () => {
    expect(decideModelTurn(textAnswer('Thinking...'), 0, policy)).toEqual({ kind: 'nudge', consecutiveNudges: 1 });
  });

  test('with consecutiveNudges 1 the second text answer in a row exceeds with count 2', () => {
    expect(decideModelTurn(textAnswer('Still thinking...'), 1, policy)).toEqual({
      kind: 'nudges_exceeded',
      consecutiveNudges: 2,
    });
  });

  test('with consecutiveNudges 0 the first text answer already exceeds', () => {
    expect(decideModelTurn(textAnswer('Hello.'), 0, { consecutiveNudges: 0 })).toEqual({
      kind: 'nudges_exceeded',
      consecutiveNudges: 1,
    });
  });

  test('with consecutiveNudges 3 the third text answer in a row is still nudged', () => {
    expect(decideModelTurn(textAnswer('...'), 2, { consecutiveNudges: 3 })).toEqual({
      kind: 'nudge',
      consecutiveNudges: 3,
    });
  });

  test('with consecutiveNudges 3 the fourth text answer in a row exceeds', () => {
    expect(decideModelTurn(textAnswer('...'), 3, { consecutiveNudges: 3 })).toEqual({
      kind: 'nudges_exceeded',
      consecutiveNudges: 4,
    });
  });

  test('a null-content answer is nudged like a text answer', () => {
    expect(decideModelTurn(textAnswer(null), 0, policy)).toEqual({ kind: 'nudge', consecutiveNudges: 1 });
  });
});
