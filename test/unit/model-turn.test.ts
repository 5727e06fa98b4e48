import type { AssistantMessage, ToolCall } from '../../src/shared/messages';
import { DEFAULT_CIRCUIT_BREAKER_THRESHOLD } from '../../src/shared/defaults/context-control';
import { REQUIRE_TOOL_CALL_MESSAGE } from '../../src/shared/defaults/run-input';
import { parseAgentInput, type ParsedAgentInput } from '../../src/shared/agent-input';
import { decideModelTurn, turnPolicyFor, type TurnCounters } from '../../src/workflows/rules/model-turn';
import type { NudgePolicy } from '../../src/workflows/rules/nudge-rule';
import type { RestrictionPolicy } from '../../src/workflows/rules/restriction-rule';

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
const nudgeOf = (consecutiveNudges: number): NudgePolicy => ({
  injected: 'nudge',
  message: 'Call a tool.',
  consecutiveNudges,
});
const restrictionOf = (maxInjections: number): RestrictionPolicy => ({ maxInjections, message: 'Use a tool.' });

describe('decideModelTurn without rules', () => {
  test('text completes the run with that text', () => {
    expect(decideModelTurn(textAnswer('Paris.'), fresh, {})).toEqual({
      kind: 'final_output',
      text: 'Paris.',
      counters: fresh,
    });
  });

  test('null content completes the run with an empty text', () => {
    expect(decideModelTurn(textAnswer(null), fresh, {})).toEqual({ kind: 'final_output', text: '', counters: fresh });
  });

  test('an empty tool_calls list counts as no tool calls', () => {
    const message: AssistantMessage = { role: 'assistant', content: 'Done.', tool_calls: [] };
    expect(decideModelTurn(message, fresh, {})).toEqual({ kind: 'final_output', text: 'Done.', counters: fresh });
  });

  test('earlier counts do not matter without rules, and are left as they are', () => {
    expect(decideModelTurn(textAnswer('Done.'), counters(7, 7), {})).toEqual({
      kind: 'final_output',
      text: 'Done.',
      counters: counters(7, 7),
    });
  });
});

describe('decideModelTurn tool calls', () => {
  test('tool calls are run, with or without text, and start a new turn (both counters back to 0)', () => {
    const message: AssistantMessage = { role: 'assistant', content: 'Let me compute.', tool_calls: [calculatorCall] };
    expect(decideModelTurn(message, fresh, {})).toEqual({
      kind: 'run_tools',
      calls: [calculatorCall],
      counters: fresh,
    });
  });

  test('tool calls are run whatever the counters and rules say; the counters reset', () => {
    const message: AssistantMessage = { role: 'assistant', content: null, tool_calls: [calculatorCall] };
    const policy = { nudge: nudgeOf(1), restriction: restrictionOf(1) };
    expect(decideModelTurn(message, counters(5, 5), policy)).toEqual({
      kind: 'run_tools',
      calls: [calculatorCall],
      counters: fresh,
    });
  });
});

describe('decideModelTurn with one rule', () => {
  test('nudge only: nudged, then exceeded', () => {
    const policy = { nudge: nudgeOf(1) };
    expect(decideModelTurn(textAnswer('Thinking...'), fresh, policy)).toEqual({
      kind: 'nudge',
      injected: 'nudge',
      message: 'Call a tool.',
      counters: counters(1, 0),
    });
    expect(decideModelTurn(textAnswer('Still thinking.'), counters(1, 0), policy)).toEqual({
      kind: 'nudges_exceeded',
      limit: 1,
      counters: counters(2, 0),
    });
  });

  test('restriction only: injected while the turn budget lasts, then the text is the answer', () => {
    const policy = { restriction: restrictionOf(2) };
    expect(decideModelTurn(textAnswer('a'), fresh, policy)).toEqual({
      kind: 'restrict',
      message: 'Use a tool.',
      counters: counters(0, 1),
    });
    expect(decideModelTurn(textAnswer('b'), counters(0, 1), policy)).toEqual({
      kind: 'restrict',
      message: 'Use a tool.',
      counters: counters(0, 2),
    });
    expect(decideModelTurn(textAnswer('c'), counters(0, 2), policy)).toEqual({
      kind: 'final_output',
      text: 'c',
      counters: counters(0, 2),
    });
  });
});

describe('decideModelTurn with both rules: the restriction applies first, then the nudges', () => {
  const policy = { nudge: nudgeOf(1), restriction: restrictionOf(1) };

  test('the first text answer meets the restriction and leaves the nudge counter alone', () => {
    expect(decideModelTurn(textAnswer('a'), fresh, policy)).toEqual({
      kind: 'restrict',
      message: 'Use a tool.',
      counters: counters(0, 1),
    });
  });

  test('once the restriction is spent, text meets the nudge rule instead of ending the run', () => {
    expect(decideModelTurn(textAnswer('b'), counters(0, 1), policy)).toMatchObject({
      kind: 'nudge',
      counters: counters(1, 1),
    });
    expect(decideModelTurn(textAnswer('c'), counters(1, 1), policy)).toEqual({
      kind: 'nudges_exceeded',
      limit: 1,
      counters: counters(2, 1),
    });
  });

  test('an unlimited restriction never hands over to the nudges (the invocation cap bounds it)', () => {
    const unlimited = { nudge: nudgeOf(1), restriction: restrictionOf(0) };
    expect(decideModelTurn(textAnswer('a'), counters(0, 50), unlimited)).toMatchObject({
      kind: 'restrict',
      counters: counters(0, 51),
    });
  });
});

/** Parses an input as the workflow does, with defaults applied. */
function parsed(input: Record<string, unknown>): ParsedAgentInput {
  const result = parseAgentInput({ message: 'hi', tools: ['calculator'], ...input });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.input;
}

describe('turnPolicyFor', () => {
  test('a run that may answer with text: an empty policy', () => {
    expect(turnPolicyFor(parsed({}))).toEqual({});
    expect(turnPolicyFor(parsed({ restrictOutput: { enabled: false } }))).toEqual({});
  });

  test('an autonomous run nudges with its terminating config', () => {
    const input = parsed({
      tools: ['finish'],
      terminating: { toolIds: ['finish'], nudgeMessage: 'Call finish.', consecutiveNudges: 3 },
    });
    expect(turnPolicyFor(input)).toEqual({
      nudge: { injected: 'nudge', message: 'Call finish.', consecutiveNudges: 3 },
    });
  });

  test('requireToolCall injects an error context, counted up to the circuit breaker threshold', () => {
    expect(turnPolicyFor(parsed({ requireToolCall: true })).nudge).toEqual({
      injected: 'error_context',
      message: REQUIRE_TOOL_CALL_MESSAGE,
      consecutiveNudges: DEFAULT_CIRCUIT_BREAKER_THRESHOLD,
    });
    expect(
      turnPolicyFor(parsed({ requireToolCall: true, circuitBreaker: { threshold: 2 } })).nudge?.consecutiveNudges,
    ).toBe(2);
  });

  test('terminating wins over requireToolCall', () => {
    const input = parsed({ tools: ['finish'], requireToolCall: true, terminating: { toolIds: ['finish'] } });
    expect(turnPolicyFor(input).nudge?.injected).toBe('nudge');
  });

  test('restricted output applies only when enabled, with its message and per-turn budget', () => {
    const restrictOutput = parsed({ restrictOutput: { enabled: true } }).restrictOutput;
    expect(turnPolicyFor(parsed({ restrictOutput: { enabled: true } }))).toEqual({
      restriction: { maxInjections: restrictOutput?.maxInjections, message: restrictOutput?.message },
    });
  });
});
