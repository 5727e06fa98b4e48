import type { AssistantMessage, ToolCall } from '../../src/shared';
import { decideModelTurn, type TurnCounters } from '../../src/workflows/rules/model-turn';

const textAnswer = (content: string | null): AssistantMessage => ({ role: 'assistant', content });
const calculatorCall: ToolCall = {
  id: 'call_1',
  type: 'function',
  function: { name: 'calculator', arguments: '{"expression":"6*7"}' },
};
const fresh: TurnCounters = { consecutiveNudges: 0, restrictionInjections: 0 };
const counters = (consecutiveNudges: number, restrictionInjections: number): TurnCounters => ({
  consecutiveNudges,
  restrictionInjections,
});

describe('decideModelTurn without rules', () => {
  test('text completes the run with that text', () => {
    expect(decideModelTurn(textAnswer('Paris.'), fresh, {})).toEqual({ kind: 'final_output', text: 'Paris.' });
  });

  test('null content completes the run with an empty text', () => {
    expect(decideModelTurn(textAnswer(null), fresh, {})).toEqual({ kind: 'final_output', text: '' });
  });

  test('an empty tool_calls list counts as no tool calls', () => {
    const message: AssistantMessage = { role: 'assistant', content: 'Done.', tool_calls: [] };
    expect(decideModelTurn(message, fresh, {})).toEqual({ kind: 'final_output', text: 'Done.' });
  });

  test('earlier counts do not matter without rules', () => {
    expect(decideModelTurn(textAnswer('Done.'), counters(7, 7), {})).toEqual({ kind: 'final_output', text: 'Done.' });
  });
});

describe('decideModelTurn tool calls', () => {
  test('tool calls are run, with or without text', () => {
    const message: AssistantMessage = { role: 'assistant', content: 'Let me compute.', tool_calls: [calculatorCall] };
    expect(decideModelTurn(message, fresh, {})).toEqual({ kind: 'run_tools', calls: [calculatorCall] });
  });

  test('tool calls are run whatever the counters and rules say', () => {
    const message: AssistantMessage = { role: 'assistant', content: null, tool_calls: [calculatorCall] };
    const policy = { nudge: { consecutiveNudges: 1 }, restriction: { maxInjections: 1 } };
    expect(decideModelTurn(message, counters(5, 5), policy)).toEqual({ kind: 'run_tools', calls: [calculatorCall] });
  });
});

describe('decideModelTurn with one rule', () => {
  test('nudge only: nudged, then exceeded', () => {
    const policy = { nudge: { consecutiveNudges: 1 } };
    expect(decideModelTurn(textAnswer('Thinking...'), fresh, policy)).toEqual({ kind: 'nudge', consecutiveNudges: 1 });
    expect(decideModelTurn(textAnswer('Still thinking.'), counters(1, 0), policy)).toEqual({
      kind: 'nudges_exceeded',
      consecutiveNudges: 2,
    });
  });

  test('restriction only: injected while the turn budget lasts, then the text is the answer', () => {
    const policy = { restriction: { maxInjections: 2 } };
    expect(decideModelTurn(textAnswer('a'), fresh, policy)).toEqual({ kind: 'restrict', restrictionInjections: 1 });
    expect(decideModelTurn(textAnswer('b'), counters(0, 1), policy)).toEqual({ kind: 'restrict', restrictionInjections: 2 });
    expect(decideModelTurn(textAnswer('c'), counters(0, 2), policy)).toEqual({ kind: 'final_output', text: 'c' });
  });
});

describe('decideModelTurn with both rules: the restriction applies first, then the nudges', () => {
  const policy = { nudge: { consecutiveNudges: 1 }, restriction: { maxInjections: 1 } };

  test('the first text answer meets the restriction and leaves the nudge counter alone', () => {
    expect(decideModelTurn(textAnswer('a'), fresh, policy)).toEqual({ kind: 'restrict', restrictionInjections: 1 });
  });

  test('once the restriction is spent, text meets the nudge rule instead of ending the run', () => {
    expect(decideModelTurn(textAnswer('b'), counters(0, 1), policy)).toEqual({ kind: 'nudge', consecutiveNudges: 1 });
    expect(decideModelTurn(textAnswer('c'), counters(1, 1), policy)).toEqual({ kind: 'nudges_exceeded', consecutiveNudges: 2 });
  });

  test('an unlimited restriction never hands over to the nudges (the invocation cap bounds it)', () => {
    const unlimited = { nudge: { consecutiveNudges: 1 }, restriction: { maxInjections: 0 } };
    expect(decideModelTurn(textAnswer('a'), counters(0, 50), unlimited)).toEqual({ kind: 'restrict', restrictionInjections: 51 });
  });
});
