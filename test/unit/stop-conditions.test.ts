import { z } from 'zod';
import { type ChatMessage, type Usage, ZERO_USAGE } from '../../src/shared/messages';
import { type StopCondition, durationToMs, stopConditionSchema } from '../../src/shared/stop-conditions-schema';
import {
  type CustomStopCondition,
  type StopContext,
  createStopConditionRegistry,
  describeStopCondition,
  evaluateStopCondition,
  validateStopCondition,
} from '../../src/workflows/rules/stop-conditions';

const TURN_START = 1_700_000_000_000;

/** A context in which nothing has happened yet this turn; `overrides` set what has. */
function context(overrides: Partial<StopContext> = {}): StopContext {
  return {
    iteration: 1,
    turnIteration: 1,
    turnStartedAtMs: TURN_START,
    nowMs: TURN_START,
    turnMessages: [user('Write a haiku about Paris.')],
    turnUsage: ZERO_USAGE,
    executedTools: [],
    externalStopRequested: false,
    response: undefined,
    totalUsage: ZERO_USAGE,
    toolCallsExecuted: 0,
    lastToolResults: [],
    ...overrides,
  };
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string | null, ...toolNames: string[]): ChatMessage => ({
  role: 'assistant',
  content,
  ...(toolNames.length === 0
    ? {}
    : {
        tool_calls: toolNames.map((name, index) => ({
          id: `call-${index}`,
          type: 'function',
          function: { name, arguments: '{}' },
        })),
      }),
});
const toolResult = (content: string): ChatMessage => ({ role: 'tool', tool_call_id: 'call-0', content });
const nudge = (): ChatMessage => ({
  role: 'system',
  content: 'Call a terminating tool.',
  meta: { injected: 'nudge', iteration: 1 },
});

/** The opening user message followed by `produced` messages: assistant, tool and injected system in turn. */
function turnWith(produced: number): ChatMessage[] {
  const cycle = [assistant('working', 'search'), toolResult('found it'), nudge()];
  return [user('go'), ...Array.from({ length: produced }, (_, index) => cycle[index % cycle.length] as ChatMessage)];
}

const usage = (promptTokens: number, completionTokens: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

/** Zod's problems as `path: message` lines, the way `parseAgentInput` prints them. */
function problemsOf(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error(`expected problems, but ${JSON.stringify(value)} parsed`);
  return parsed.error.issues.map((issue) => `${formatPath(issue.path) || 'input'}: ${issue.message}`);
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) =>
      typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`,
    )
    .join('');
}

const KEYS =
  'maxMessages, textMention, tokenUsage, timeout, functionCall, handoff, maxIterations, external, textMessage, stopMessage, sourceMatch, custom, any, all';

describe('stopConditionSchema accepts', () => {
  const valid: [string, StopCondition][] = [
    ['maxMessages', { maxMessages: 10 }],
    ['textMention', { textMention: 'APPROVE' }],
    ['tokenUsage with one limit', { tokenUsage: { maxTotal: 1_000 } }],
    ['tokenUsage with every limit', { tokenUsage: { maxTotal: 1_000, maxPrompt: 800, maxCompletion: 200 } }],
    ['timeout in milliseconds', { timeout: 30_000 }],
    ['timeout as text', { timeout: '5 minutes' }],
    ['functionCall', { functionCall: 'finish' }],
    ['handoff', { handoff: 'billing' }],
    ['maxIterations', { maxIterations: 5 }],
    ['external', { external: true }],
    ['custom without params', { custom: 'budgetSpent' }],
    ['custom with params', { custom: 'budgetSpent', params: { limit: 500, tags: ['a'] } }],
    ['any', { any: [{ maxMessages: 10 }, { textMention: 'APPROVE' }] }],
    ['all', { all: [{ maxIterations: 2 }, { functionCall: 'finish' }] }],
    ['a one-member any', { any: [{ external: true }] }],
  ];

  test.each(valid)('%s, unchanged', (_, condition) => {
    expect(stopConditionSchema.parse(condition)).toEqual(condition);
  });

  test('combinations nested three levels deep', () => {
    const condition: StopCondition = {
      any: [
        { all: [{ maxIterations: 5 }, { any: [{ textMention: 'DONE' }, { functionCall: 'finish' }] }] },
        { external: true },
        { all: [{ timeout: '1h' }, { custom: 'quiet', params: { minutes: 5 } }] },
      ],
    };

    expect(stopConditionSchema.parse(condition)).toEqual(condition);
  });
});

describe('stopConditionSchema rejects, naming the field', () => {
  const invalid: [string, unknown, string[]][] = [
    ['an unknown key', { foo: 1 }, [`input: expected one of: ${KEYS}; got "foo"`]],
    ['an empty object', {}, [`input: expected one of: ${KEYS}; got an empty object`]],
    [
      'sourceMatch that is not a list',
      { sourceMatch: 'critic' },
      ['sourceMatch: Invalid input: expected array, received string'],
    ],
    ['an empty sourceMatch', { sourceMatch: [] }, ['sourceMatch: name at least one agent tool']],
    ['stopMessage other than true', { stopMessage: false }, ['stopMessage: Invalid input: expected true']],
    ['an unknown key beside a condition', { maxMessages: 3, foo: 1 }, ['input: Unrecognized key: "foo"']],
    [
      'params on a condition other than custom',
      { functionCall: 'finish', params: {} },
      ['input: Unrecognized key: "params"'],
    ],
    [
      'two conditions in one object',
      { maxMessages: 3, textMention: 'APPROVE' },
      [
        'input: one condition per object, got maxMessages and textMention; combine conditions with { any: [...] } or { all: [...] }',
      ],
    ],
    [
      'three conditions in one object',
      { maxMessages: 3, external: true, any: [] },
      [
        'input: one condition per object, got maxMessages, external and any; combine conditions with { any: [...] } or { all: [...] }',
      ],
    ],
    ['an empty any', { any: [] }, ['any: give at least one condition']],
    ['an empty all', { all: [] }, ['all: give at least one condition']],
    ['maxMessages 0', { maxMessages: 0 }, ['maxMessages: Too small: expected number to be >0']],
    ['negative maxMessages', { maxMessages: -1 }, ['maxMessages: Too small: expected number to be >0']],
    ['fractional maxMessages', { maxMessages: 1.5 }, ['maxMessages: Invalid input: expected int, received number']],
    ['maxMessages as text', { maxMessages: '10' }, ['maxMessages: Invalid input: expected number, received string']],
    ['maxIterations 0', { maxIterations: 0 }, ['maxIterations: Too small: expected number to be >0']],
    ['an empty textMention', { textMention: '' }, ['textMention: Too small: expected string to have >=1 characters']],
    [
      'an empty functionCall',
      { functionCall: '' },
      ['functionCall: Too small: expected string to have >=1 characters'],
    ],
    ['an empty handoff', { handoff: '' }, ['handoff: Too small: expected string to have >=1 characters']],
    ['an empty custom name', { custom: '' }, ['custom: Too small: expected string to have >=1 characters']],
    [
      'custom params that are not an object',
      { custom: 'x', params: [1] },
      ['params: Invalid input: expected record, received array'],
    ],
    ['external false', { external: false }, ['external: Invalid input: expected true']],
    ['tokenUsage without a limit', { tokenUsage: {} }, ['tokenUsage: give maxTotal, maxPrompt or maxCompletion']],
    ['tokenUsage 0', { tokenUsage: { maxTotal: 0 } }, ['tokenUsage.maxTotal: Too small: expected number to be >0']],
    [
      'an unknown tokenUsage limit',
      { tokenUsage: { maxTotal: 5, maxCached: 1 } },
      ['tokenUsage: Unrecognized key: "maxCached"'],
    ],
    [
      'a duration that is not one',
      { timeout: 'soon' },
      ['timeout: expected a duration such as "30s", "5 minutes" or "1h"'],
    ],
    ['a zero duration', { timeout: '0s' }, ['timeout: expected a duration such as "30s", "5 minutes" or "1h"']],
    ['a zero timeout', { timeout: 0 }, ['timeout: Too small: expected number to be >0']],
    ['null', null, [`input: expected an object with one of: ${KEYS}`]],
    ['an array', [{ maxMessages: 1 }], [`input: expected an object with one of: ${KEYS}`]],
    ['a string', 'maxMessages', [`input: expected an object with one of: ${KEYS}`]],
  ];

  test.each(invalid)('%s', (_, value, problems) => {
    expect(problemsOf(stopConditionSchema, value)).toEqual(problems);
  });

  test('a problem deep in a combination has its full path', () => {
    const value = { any: [{ maxMessages: 10 }, { all: [{ timeout: 'soon' }, { external: false }] }, { custom: '' }] };

    expect(problemsOf(stopConditionSchema, value)).toEqual([
      'any[1].all[0].timeout: expected a duration such as "30s", "5 minutes" or "1h"',
      'any[1].all[1].external: Invalid input: expected true',
      'any[2].custom: Too small: expected string to have >=1 characters',
    ]);
  });

  test('inside an input object, paths start at the field', () => {
    const input = z.strictObject({ stopWhen: stopConditionSchema.optional() });

    expect(
      problemsOf(input, { stopWhen: { all: [{ maxMessages: 3 }, { maxMessages: 3, textMention: 'OK' }] } }),
    ).toEqual([
      'stopWhen.all[1]: one condition per object, got maxMessages and textMention; combine conditions with { any: [...] } or { all: [...] }',
    ]);
    expect(input.parse({})).toEqual({});
  });
});

describe('durationToMs', () => {
  test('milliseconds stay, text is converted', () => {
    expect([durationToMs(1_500), durationToMs('30s'), durationToMs('5 minutes'), durationToMs('1h')]).toEqual([
      1_500, 30_000, 300_000, 3_600_000,
    ]);
  });
});

describe('describeStopCondition', () => {
  const renderings: [StopCondition, string][] = [
    [{ maxMessages: 10 }, 'maxMessages(10)'],
    [{ textMention: 'APPROVE' }, 'textMention("APPROVE")'],
    [{ textMention: 'say "done"' }, 'textMention("say \\"done\\"")'],
    [{ tokenUsage: { maxCompletion: 200, maxTotal: 1_000 } }, 'tokenUsage(maxTotal: 1000, maxCompletion: 200)'],
    [{ timeout: '5m' }, 'timeout("5m")'],
    [{ timeout: 30_000 }, 'timeout(30000)'],
    [{ functionCall: 'finish' }, 'functionCall("finish")'],
    [{ handoff: 'billing' }, 'handoff("billing")'],
    [{ maxIterations: 3 }, 'maxIterations(3)'],
    [{ external: true }, 'external()'],
    [{ custom: 'quiet' }, 'custom("quiet")'],
    [{ custom: 'quiet', params: { minutes: 5 } }, 'custom("quiet", {"minutes":5})'],
    [{ any: [{ maxMessages: 10 }, { textMention: 'APPROVE' }] }, 'any(maxMessages(10), textMention("APPROVE"))'],
    [
      { all: [{ maxIterations: 2 }, { any: [{ external: true }, { handoff: 'human' }] }] },
      'all(maxIterations(2), any(external(), handoff("human")))',
    ],
  ];

  test.each(renderings)('%j renders as %s', (condition, rendering) => {
    expect(describeStopCondition(condition)).toBe(rendering);
  });
});

describe('maxMessages', () => {
  test('one below the limit does not stop', () => {
    expect(evaluateStopCondition({ maxMessages: 3 }, context({ turnMessages: turnWith(2) }))).toEqual({ stop: false });
  });

  test('at the limit stops, counting assistant, tool and injected system messages', () => {
    expect(evaluateStopCondition({ maxMessages: 3 }, context({ turnMessages: turnWith(3) }))).toEqual({
      stop: true,
      condition: 'maxMessages(3)',
      detail: '3 messages this turn, limit 3',
    });
  });

  test('above the limit stops with the count', () => {
    expect(evaluateStopCondition({ maxMessages: 10 }, context({ turnMessages: turnWith(12) }))).toEqual({
      stop: true,
      condition: 'maxMessages(10)',
      detail: '12 messages this turn, limit 10',
    });
  });

  test('the user message that opened the turn is not counted', () => {
    const turnMessages = [user('go'), assistant('ok')];

    expect(evaluateStopCondition({ maxMessages: 2 }, context({ turnMessages }))).toEqual({ stop: false });
    expect(evaluateStopCondition({ maxMessages: 1 }, context({ turnMessages }))).toEqual({
      stop: true,
      condition: 'maxMessages(1)',
      detail: '1 message this turn, limit 1',
    });
  });

  test('messages a hand-over left behind after a compaction still count', () => {
    expect(
      evaluateStopCondition({ maxMessages: 5 }, context({ turnMessages: turnWith(2), turnMessagesLeftBehind: 2 })),
    ).toEqual({ stop: false });
    expect(
      evaluateStopCondition({ maxMessages: 5 }, context({ turnMessages: turnWith(2), turnMessagesLeftBehind: 3 })),
    ).toEqual({
      stop: true,
      condition: 'maxMessages(5)',
      detail: '5 messages this turn, limit 5',
    });
  });
});

describe('textMention', () => {
  test('an assistant message containing the text stops, naming which one', () => {
    const turnMessages = [user('review this'), assistant('Needs work.'), assistant('Looks good. APPROVE.')];

    expect(evaluateStopCondition({ textMention: 'APPROVE' }, context({ turnMessages }))).toEqual({
      stop: true,
      condition: 'textMention("APPROVE")',
      detail: 'assistant message 2 of this turn mentions "APPROVE"',
    });
  });

  test('the text in the user message does not stop', () => {
    const turnMessages = [user('Reply APPROVE when done.'), assistant('Working on it.')];

    expect(evaluateStopCondition({ textMention: 'APPROVE' }, context({ turnMessages }))).toEqual({ stop: false });
  });

  test('the text in a tool result or an injected system message does not stop', () => {
    const turnMessages = [
      user('go'),
      assistant(null, 'review'),
      toolResult('reviewer says APPROVE'),
      { role: 'system', content: 'APPROVE', meta: { injected: 'nudge' } } satisfies ChatMessage,
    ];

    expect(evaluateStopCondition({ textMention: 'APPROVE' }, context({ turnMessages }))).toEqual({ stop: false });
  });

  test('matching is case-sensitive', () => {
    const turnMessages = [user('go'), assistant('I approve.')];

    expect(evaluateStopCondition({ textMention: 'APPROVE' }, context({ turnMessages }))).toEqual({ stop: false });
  });

  test('an assistant message with only tool calls mentions nothing', () => {
    const turnMessages = [user('go'), assistant(null, 'APPROVE')];

    expect(evaluateStopCondition({ textMention: 'APPROVE' }, context({ turnMessages }))).toEqual({ stop: false });
  });
});

describe('tokenUsage', () => {
  test('total one below maxTotal does not stop', () => {
    expect(evaluateStopCondition({ tokenUsage: { maxTotal: 1_000 } }, context({ turnUsage: usage(600, 399) }))).toEqual(
      { stop: false },
    );
  });

  test('total at maxTotal stops', () => {
    expect(evaluateStopCondition({ tokenUsage: { maxTotal: 1_000 } }, context({ turnUsage: usage(600, 400) }))).toEqual(
      {
        stop: true,
        condition: 'tokenUsage(maxTotal: 1000)',
        detail: '1000 total tokens this turn, limit 1000',
      },
    );
  });

  test('total above maxTotal stops with the tokens used', () => {
    expect(evaluateStopCondition({ tokenUsage: { maxTotal: 1_000 } }, context({ turnUsage: usage(900, 350) }))).toEqual(
      {
        stop: true,
        condition: 'tokenUsage(maxTotal: 1000)',
        detail: '1250 total tokens this turn, limit 1000',
      },
    );
  });

  test('prompt tokens: below, at and above maxPrompt', () => {
    const condition: StopCondition = { tokenUsage: { maxPrompt: 700 } };

    expect(evaluateStopCondition(condition, context({ turnUsage: usage(699, 900) }))).toEqual({ stop: false });
    expect(evaluateStopCondition(condition, context({ turnUsage: usage(700, 0) }))).toEqual({
      stop: true,
      condition: 'tokenUsage(maxPrompt: 700)',
      detail: '700 prompt tokens this turn, limit 700',
    });
    expect(evaluateStopCondition(condition, context({ turnUsage: usage(701, 0) }))).toEqual({
      stop: true,
      condition: 'tokenUsage(maxPrompt: 700)',
      detail: '701 prompt tokens this turn, limit 700',
    });
  });

  test('completion tokens: below, at and above maxCompletion', () => {
    const condition: StopCondition = { tokenUsage: { maxCompletion: 400 } };

    expect(evaluateStopCondition(condition, context({ turnUsage: usage(5_000, 399) }))).toEqual({ stop: false });
    expect(evaluateStopCondition(condition, context({ turnUsage: usage(10, 400) }))).toEqual({
      stop: true,
      condition: 'tokenUsage(maxCompletion: 400)',
      detail: '400 completion tokens this turn, limit 400',
    });
    expect(evaluateStopCondition(condition, context({ turnUsage: usage(10, 450) }))).toEqual({
      stop: true,
      condition: 'tokenUsage(maxCompletion: 400)',
      detail: '450 completion tokens this turn, limit 400',
    });
  });

  test('with several limits, any one reached stops; total is reported before prompt and completion', () => {
    const condition: StopCondition = { tokenUsage: { maxTotal: 1_000, maxPrompt: 700, maxCompletion: 200 } };

    expect(evaluateStopCondition(condition, context({ turnUsage: usage(600, 199) }))).toEqual({ stop: false });
    expect(evaluateStopCondition(condition, context({ turnUsage: usage(100, 200) }))).toEqual({
      stop: true,
      condition: 'tokenUsage(maxTotal: 1000, maxPrompt: 700, maxCompletion: 200)',
      detail: '200 completion tokens this turn, limit 200',
    });
    expect(evaluateStopCondition(condition, context({ turnUsage: usage(800, 300) }))).toEqual({
      stop: true,
      condition: 'tokenUsage(maxTotal: 1000, maxPrompt: 700, maxCompletion: 200)',
      detail: '1100 total tokens this turn, limit 1000',
    });
  });
});

describe('timeout', () => {
  test('one millisecond before the duration does not stop', () => {
    expect(evaluateStopCondition({ timeout: '30s' }, context({ nowMs: TURN_START + 29_999 }))).toEqual({ stop: false });
  });

  test('exactly the duration since the turn started stops', () => {
    expect(evaluateStopCondition({ timeout: '30s' }, context({ nowMs: TURN_START + 30_000 }))).toEqual({
      stop: true,
      condition: 'timeout("30s")',
      detail: '30000 ms since the turn started, limit 30000 ms',
    });
  });

  test('past the duration stops with the time elapsed', () => {
    expect(evaluateStopCondition({ timeout: '5 minutes' }, context({ nowMs: TURN_START + 301_500 }))).toEqual({
      stop: true,
      condition: 'timeout("5 minutes")',
      detail: '301500 ms since the turn started, limit 300000 ms',
    });
  });

  test('a duration in milliseconds', () => {
    expect(evaluateStopCondition({ timeout: 1_500 }, context({ nowMs: TURN_START + 1_499 }))).toEqual({ stop: false });
    expect(evaluateStopCondition({ timeout: 1_500 }, context({ nowMs: TURN_START + 1_500 }))).toEqual({
      stop: true,
      condition: 'timeout(1500)',
      detail: '1500 ms since the turn started, limit 1500 ms',
    });
  });

  test('time is measured from the turn start, not the epoch', () => {
    expect(
      evaluateStopCondition(
        { timeout: '1h' },
        context({ turnStartedAtMs: TURN_START + 60_000, nowMs: TURN_START + 60_000 + 3_599_999 }),
      ),
    ).toEqual({ stop: false });
  });
});

describe('functionCall', () => {
  test('stops once the tool has executed this turn', () => {
    expect(evaluateStopCondition({ functionCall: 'finish' }, context({ executedTools: ['search', 'finish'] }))).toEqual(
      {
        stop: true,
        condition: 'functionCall("finish")',
        detail: 'tool "finish" executed this turn',
      },
    );
  });

  test('a call the model asked for but that did not execute does not stop', () => {
    const turnMessages = [user('go'), assistant(null, 'finish')];

    expect(evaluateStopCondition({ functionCall: 'finish' }, context({ turnMessages, executedTools: [] }))).toEqual({
      stop: false,
    });
  });

  test('other tools, including ones whose name starts the same, do not stop', () => {
    expect(
      evaluateStopCondition({ functionCall: 'finish' }, context({ executedTools: ['search', 'finish_draft'] })),
    ).toEqual({ stop: false });
  });
});

describe('handoff', () => {
  test('stops once transfer_to_<target> has executed this turn', () => {
    expect(
      evaluateStopCondition({ handoff: 'billing' }, context({ executedTools: ['lookup', 'transfer_to_billing'] })),
    ).toEqual({
      stop: true,
      condition: 'handoff("billing")',
      detail: 'handoff to "billing": tool "transfer_to_billing" executed this turn',
    });
  });

  test('a handoff the model asked for but that did not execute does not stop', () => {
    const turnMessages = [user('go'), assistant(null, 'transfer_to_billing')];

    expect(evaluateStopCondition({ handoff: 'billing' }, context({ turnMessages, executedTools: [] }))).toEqual({
      stop: false,
    });
  });

  test('a handoff to another target, or a tool named like the target, does not stop', () => {
    expect(
      evaluateStopCondition({ handoff: 'billing' }, context({ executedTools: ['transfer_to_sales', 'billing'] })),
    ).toEqual({
      stop: false,
    });
  });
});

describe('maxIterations', () => {
  test('below, at and above the model calls of the turn', () => {
    const condition: StopCondition = { maxIterations: 3 };

    expect(evaluateStopCondition(condition, context({ turnIteration: 2 }))).toEqual({ stop: false });
    expect(evaluateStopCondition(condition, context({ turnIteration: 3 }))).toEqual({
      stop: true,
      condition: 'maxIterations(3)',
      detail: '3 model calls this turn, limit 3',
    });
    expect(evaluateStopCondition(condition, context({ turnIteration: 4 }))).toEqual({
      stop: true,
      condition: 'maxIterations(3)',
      detail: '4 model calls this turn, limit 3',
    });
  });

  test('model calls of earlier turns do not count', () => {
    expect(evaluateStopCondition({ maxIterations: 3 }, context({ iteration: 10, turnIteration: 1 }))).toEqual({
      stop: false,
    });
  });

  test('one model call is singular', () => {
    expect(evaluateStopCondition({ maxIterations: 1 }, context({ turnIteration: 1 }))).toEqual({
      stop: true,
      condition: 'maxIterations(1)',
      detail: '1 model call this turn, limit 1',
    });
  });
});

describe('external', () => {
  test('stops only once an external stop was requested', () => {
    expect(evaluateStopCondition({ external: true }, context({ externalStopRequested: false }))).toEqual({
      stop: false,
    });
    expect(evaluateStopCondition({ external: true }, context({ externalStopRequested: true }))).toEqual({
      stop: true,
      condition: 'external()',
      detail: 'an external stop was requested',
    });
  });
});

describe('any and all', () => {
  const maxOrApprove: StopCondition = { any: [{ maxMessages: 10 }, { textMention: 'APPROVE' }] };

  test('any reports the member that fired', () => {
    const turnMessages = [user('review'), assistant('APPROVE')];

    expect(evaluateStopCondition(maxOrApprove, context({ turnMessages }))).toEqual({
      stop: true,
      condition: 'textMention("APPROVE")',
      detail: 'assistant message 1 of this turn mentions "APPROVE"',
    });
  });

  test('when several members of any fire, the first is reported', () => {
    const turnMessages = [...turnWith(11), assistant('APPROVE')];

    expect(evaluateStopCondition(maxOrApprove, context({ turnMessages }))).toEqual({
      stop: true,
      condition: 'maxMessages(10)',
      detail: '12 messages this turn, limit 10',
    });
  });

  test('any with no member firing does not stop', () => {
    expect(evaluateStopCondition(maxOrApprove, context({ turnMessages: turnWith(9) }))).toEqual({ stop: false });
  });

  const twoCallsAndFinish: StopCondition = { all: [{ maxIterations: 2 }, { functionCall: 'finish' }] };

  test('all with one member firing does not stop', () => {
    expect(evaluateStopCondition(twoCallsAndFinish, context({ turnIteration: 2 }))).toEqual({ stop: false });
    expect(evaluateStopCondition(twoCallsAndFinish, context({ turnIteration: 1, executedTools: ['finish'] }))).toEqual({
      stop: false,
    });
  });

  test('all with every member firing reports the whole all and every reason', () => {
    expect(evaluateStopCondition(twoCallsAndFinish, context({ turnIteration: 2, executedTools: ['finish'] }))).toEqual({
      stop: true,
      condition: 'all(maxIterations(2), functionCall("finish"))',
      detail: '2 model calls this turn, limit 2; tool "finish" executed this turn',
    });
  });

  const nested: StopCondition = {
    any: [{ all: [{ maxIterations: 5 }, { textMention: 'DONE' }] }, { any: [{ external: true }, { timeout: '1m' }] }],
  };

  test('nested: an any inside an any reports the innermost member that fired', () => {
    expect(evaluateStopCondition(nested, context({ nowMs: TURN_START + 60_000 }))).toEqual({
      stop: true,
      condition: 'timeout("1m")',
      detail: '60000 ms since the turn started, limit 60000 ms',
    });
  });

  test('nested: an all inside an any is reported whole', () => {
    const turnMessages = [user('go'), assistant('DONE')];

    expect(
      evaluateStopCondition(nested, context({ turnIteration: 5, turnMessages, externalStopRequested: true })),
    ).toEqual({
      stop: true,
      condition: 'all(maxIterations(5), textMention("DONE"))',
      detail: '5 model calls this turn, limit 5; assistant message 1 of this turn mentions "DONE"',
    });
  });

  test('nested: half an all inside an any does not stop it', () => {
    const turnMessages = [user('go'), assistant('DONE')];

    expect(
      evaluateStopCondition(nested, context({ turnIteration: 4, turnMessages, nowMs: TURN_START + 59_999 })),
    ).toEqual({ stop: false });
  });

  test('nested: an any inside an all is rendered whole, with the reason of the member that fired', () => {
    const condition: StopCondition = {
      all: [{ any: [{ textMention: 'A' }, { textMention: 'B' }] }, { maxMessages: 2 }],
    };
    const turnMessages = [user('go'), assistant('plan'), assistant('B')];

    expect(evaluateStopCondition(condition, context({ turnMessages }))).toEqual({
      stop: true,
      condition: 'all(any(textMention("A"), textMention("B")), maxMessages(2))',
      detail: 'assistant message 2 of this turn mentions "B"; 2 messages this turn, limit 2',
    });
  });

  test('any stops at the first member that fires and all at the first that does not', () => {
    const check = jest.fn<ReturnType<CustomStopCondition>, Parameters<CustomStopCondition>>(() => ({ stop: true }));
    const registry = createStopConditionRegistry({ check });

    evaluateStopCondition(
      { any: [{ external: true }, { custom: 'check' }] },
      context({ externalStopRequested: true }),
      registry,
    );
    evaluateStopCondition(
      { all: [{ external: true }, { custom: 'check' }] },
      context({ externalStopRequested: false }),
      registry,
    );

    expect(check).not.toHaveBeenCalled();
  });
});

describe('custom conditions', () => {
  const budgetSpent: CustomStopCondition = (stopContext, params) => {
    const limit = typeof params.limit === 'number' ? params.limit : Infinity;
    const spent = stopContext.turnUsage.totalTokens;
    return spent >= limit ? { stop: true, detail: `${spent} tokens spent, budget ${limit}` } : { stop: false };
  };
  const registry = createStopConditionRegistry({ budgetSpent });

  test('are called with their params and report their detail', () => {
    const condition: StopCondition = { custom: 'budgetSpent', params: { limit: 500 } };

    expect(evaluateStopCondition(condition, context({ turnUsage: usage(300, 199) }), registry)).toEqual({
      stop: false,
    });
    expect(evaluateStopCondition(condition, context({ turnUsage: usage(300, 200) }), registry)).toEqual({
      stop: true,
      condition: 'custom("budgetSpent", {"limit":500})',
      detail: '500 tokens spent, budget 500',
    });
  });

  test('receive the context as given and {} when params are absent', () => {
    const check = jest.fn<ReturnType<CustomStopCondition>, Parameters<CustomStopCondition>>(() => ({ stop: false }));
    const stopContext = context({ turnIteration: 4 });

    evaluateStopCondition({ custom: 'check' }, stopContext, createStopConditionRegistry({ check }));

    expect(check.mock.calls).toEqual([[stopContext, {}]]);
    expect(check.mock.calls[0]?.[0]).toBe(stopContext);
  });

  test('without a detail, a default one names the condition', () => {
    const always = createStopConditionRegistry({ always: () => ({ stop: true }) });

    expect(evaluateStopCondition({ custom: 'always' }, context(), always)).toEqual({
      stop: true,
      condition: 'custom("always")',
      detail: 'custom stop condition "always" fired',
    });
  });

  test('combine with built-in conditions', () => {
    const condition: StopCondition = { all: [{ maxIterations: 2 }, { custom: 'budgetSpent', params: { limit: 100 } }] };

    expect(evaluateStopCondition(condition, context({ turnIteration: 2, turnUsage: usage(80, 40) }), registry)).toEqual(
      {
        stop: true,
        condition: 'all(maxIterations(2), custom("budgetSpent", {"limit":100}))',
        detail: '2 model calls this turn, limit 2; 120 tokens spent, budget 100',
      },
    );
  });

  test('an unregistered name does not stop and does not throw', () => {
    expect(evaluateStopCondition({ custom: 'missing' }, context(), registry)).toEqual({ stop: false });
  });

  test('with no registry at all, a custom condition does not stop', () => {
    expect(evaluateStopCondition({ custom: 'budgetSpent', params: { limit: 0 } }, context())).toEqual({ stop: false });
  });

  test('an unregistered name inside any leaves the other members working', () => {
    const condition: StopCondition = { any: [{ custom: 'missing' }, { external: true }] };

    expect(evaluateStopCondition(condition, context({ externalStopRequested: true }), registry)).toEqual({
      stop: true,
      condition: 'external()',
      detail: 'an external stop was requested',
    });
  });
});

describe('createStopConditionRegistry', () => {
  const never: CustomStopCondition = () => ({ stop: false });

  test('holds its entries and what is registered later; names are sorted', () => {
    const registry = createStopConditionRegistry({ zeta: never, alpha: never });
    registry.register('mid', never);

    expect(registry.names()).toEqual(['alpha', 'mid', 'zeta']);
    expect(registry.get('mid')).toBe(never);
    expect(registry.get('other')).toBeUndefined();
  });

  test('starts empty without entries', () => {
    expect(createStopConditionRegistry().names()).toEqual([]);
  });

  test('registering a name twice is a programming error', () => {
    const registry = createStopConditionRegistry({ alpha: never });

    expect(() => registry.register('alpha', never)).toThrow(
      'a stop condition named "alpha" is already registered; register each name once',
    );
  });

  test('an empty name is a programming error', () => {
    expect(() => createStopConditionRegistry().register('', never)).toThrow(
      'a custom stop condition needs a non-empty name',
    );
  });
});

describe('validateStopCondition', () => {
  const never: CustomStopCondition = () => ({ stop: false });
  const registry = createStopConditionRegistry({ a: never, b: never });

  test('a tree whose custom names are registered has no problems', () => {
    const condition: StopCondition = {
      any: [{ custom: 'a' }, { all: [{ maxMessages: 3 }, { custom: 'b', params: { x: 1 } }] }],
    };

    expect(validateStopCondition(condition, registry)).toEqual([]);
  });

  test('an unregistered name is reported with its path and the registered names', () => {
    expect(validateStopCondition({ any: [{ maxMessages: 3 }, { custom: 'x' }] }, registry)).toEqual([
      'stopWhen.any[1].custom: no stop condition named "x" is registered (registered: a, b)',
    ]);
  });

  test('every problem is reported, in order, with nested paths', () => {
    const condition: StopCondition = {
      all: [{ any: [{ external: true }, { custom: 'x' }] }, { maxIterations: 2 }, { custom: 'y' }],
    };

    expect(validateStopCondition(condition, registry)).toEqual([
      'stopWhen.all[0].any[1].custom: no stop condition named "x" is registered (registered: a, b)',
      'stopWhen.all[2].custom: no stop condition named "y" is registered (registered: a, b)',
    ]);
  });

  test('a top-level custom condition with an empty registry', () => {
    expect(validateStopCondition({ custom: 'x' }, createStopConditionRegistry())).toEqual([
      'stopWhen.custom: no stop condition named "x" is registered (registered: none)',
    ]);
  });

  test('with the run tools, functionCall and handoff must name one of them', () => {
    const condition: StopCondition = {
      any: [{ functionCall: 'finish' }, { functionCall: 'finsh' }, { handoff: 'billing' }, { handoff: 'sales' }],
    };

    expect(validateStopCondition(condition, registry, { tools: ['finish', 'transfer_to_billing'] })).toEqual([
      'stopWhen.any[1].functionCall: "finsh" is not one of this run\'s tools (finish, transfer_to_billing); add it to `tools`',
      'stopWhen.any[3].handoff: a handoff to "sales" needs the tool "transfer_to_sales", which is not one of this run\'s tools (finish, transfer_to_billing)',
    ]);
  });

  test('without the run tools, tool names are not checked', () => {
    expect(validateStopCondition({ all: [{ functionCall: 'anything' }, { handoff: 'anyone' }] }, registry)).toEqual([]);
  });

  test('the path prefix can be changed', () => {
    expect(validateStopCondition({ custom: 'x' }, registry, { path: 'input.stopWhen' })).toEqual([
      'input.stopWhen.custom: no stop condition named "x" is registered (registered: a, b)',
    ]);
  });
});

describe('nested agents as sources: stopMessage and sourceMatch', () => {
  const answered = (toolName: string, stopMessage: boolean) => ({ toolName, stopMessage });

  test('stopMessage holds once a nested agent ended its work with a stop message this turn, not before', () => {
    expect(evaluateStopCondition({ stopMessage: true }, context())).toEqual({ stop: false });
    expect(
      evaluateStopCondition({ stopMessage: true }, context({ agentAnswers: [answered('researcher', false)] })),
    ).toEqual({ stop: false });
    expect(
      evaluateStopCondition(
        { stopMessage: true },
        context({ agentAnswers: [answered('researcher', false), answered('writer', true)] }),
      ),
    ).toEqual({
      stop: true,
      condition: 'stopMessage()',
      detail: 'nested agent "writer" ended its work with a stop message this turn',
    });
  });

  test('sourceMatch holds after one of the named nested agents answered, whatever way it ended', () => {
    const condition: StopCondition = { sourceMatch: ['critic', 'editor'] };
    expect(evaluateStopCondition(condition, context({ agentAnswers: [answered('researcher', true)] }))).toEqual({
      stop: false,
    });
    expect(
      evaluateStopCondition(
        condition,
        context({ agentAnswers: [answered('researcher', true), answered('editor', false)] }),
      ),
    ).toEqual({
      stop: true,
      condition: 'sourceMatch("critic", "editor")',
      detail: 'nested agent "editor" answered this turn',
    });
  });

  test("the schema accepts both, and validation names a sourceMatch that is not among the run's tools", () => {
    expect(stopConditionSchema.parse({ any: [{ stopMessage: true }, { sourceMatch: ['critic'] }] })).toEqual({
      any: [{ stopMessage: true }, { sourceMatch: ['critic'] }],
    });
    expect(
      validateStopCondition({ any: [{ sourceMatch: ['critic', 'ghost'] }] }, createStopConditionRegistry(), {
        tools: ['critic'],
      }),
    ).toEqual([
      'stopWhen.any[0].sourceMatch[1]: "ghost" is not one of this run\'s tools (critic); name an agent tool of the run',
    ]);
  });
});
