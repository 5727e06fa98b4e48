import { DEFAULT_NUDGE_MESSAGE, DEFAULT_RESTRICTION_MESSAGE } from '../../src/shared/defaults/run-input';
import { INPUT_BOUNDS } from '../../src/shared/defaults/input-bounds';
import { parseAgentInput, type ParsedAgentInput } from '../../src/shared/agent-input';
import { type ChatMessage } from '../../src/shared/messages';

/** The parsed input, failing the test with the problems when parsing fails. */
function parseValid(input: unknown): ParsedAgentInput {
  const parsed = parseAgentInput(input);
  if (!parsed.ok) throw new Error(`expected a valid input, got: ${parsed.problems.join(' | ')}`);
  return parsed.input;
}

/** The problems reported for `input`, failing the test when it parses. */
function problemsOf(input: unknown): string[] {
  const parsed = parseAgentInput(input);
  if (parsed.ok) throw new Error(`expected problems, but the input parsed: ${JSON.stringify(parsed.input)}`);
  return parsed.problems;
}

const assistantCalling = (...callIds: string[]): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: callIds.map((id) => ({ id, type: 'function', function: { name: 'calculator', arguments: '{}' } })),
});
const toolAnswer = (callId: string): ChatMessage => ({ role: 'tool', tool_call_id: callId, content: '42' });

describe('parseAgentInput defaults', () => {
  test('a minimal input gets parallelToolCalls true, requireToolCall false, resultMessages recent, and nothing else invented', () => {
    const input = parseValid({ tools: [], message: 'hello' });

    expect(input).toEqual({
      tools: [],
      message: 'hello',
      parallelToolCalls: true,
      requireToolCall: false,
      resultMessages: 'recent',
    });
  });

  test('an explicit parallelToolCalls false is kept', () => {
    expect(parseValid({ tools: [], message: 'hello', parallelToolCalls: false }).parallelToolCalls).toBe(false);
  });

  test('terminating gets consecutiveNudges 1 and the default nudge message', () => {
    const input = parseValid({ tools: ['finish'], message: 'go', terminating: { toolIds: ['finish'] } });

    expect(input.terminating).toEqual({
      toolIds: ['finish'],
      consecutiveNudges: 1,
      nudgeMessage: DEFAULT_NUDGE_MESSAGE,
    });
  });

  test('the default nudge message is the specified text', () => {
    expect(DEFAULT_NUDGE_MESSAGE).toBe(
      'You are currently in an autonomous execution mode with no user interaction. ' +
        'You must complete your task by calling one of the terminating tools.',
    );
  });

  test('explicit terminating values override the defaults', () => {
    const input = parseValid({
      tools: ['finish'],
      message: 'go',
      terminating: { toolIds: ['finish'], consecutiveNudges: 0, nudgeMessage: 'Call finish.', maxInvocations: 5 },
    });

    expect(input.terminating).toEqual({
      toolIds: ['finish'],
      consecutiveNudges: 0,
      nudgeMessage: 'Call finish.',
      maxInvocations: 5,
    });
  });

  test('a conversation with every tool call answered is accepted without a message', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'what is 6*7?' },
      assistantCalling('call_1', 'call_2'),
      toolAnswer('call_2'),
      toolAnswer('call_1'),
      { role: 'assistant', content: '42' },
    ];

    expect(parseValid({ tools: [], messages }).messages).toEqual(messages);
  });
});

describe('parseAgentInput unknown keys', () => {
  test('an unknown top-level key is reported against the input as a whole', () => {
    expect(problemsOf({ tools: [], message: 'hello', temperature: 0.2 })).toEqual([
      'input: Unrecognized key: "temperature"',
    ]);
  });

  test('an unknown key inside terminating is reported with its path', () => {
    expect(problemsOf({ tools: ['finish'], message: 'go', terminating: { toolIds: ['finish'], nudges: 3 } })).toEqual([
      'terminating: Unrecognized key: "nudges"',
    ]);
  });
});

describe('parseAgentInput field checks', () => {
  test('a non-object input is reported against the input', () => {
    expect(problemsOf(null)).toEqual(['input: Invalid input: expected object, received null']);
  });

  test('tools must be an array', () => {
    expect(problemsOf({ tools: 'calculator', message: 'hello' })).toEqual([
      'tools: Invalid input: expected array, received string',
    ]);
  });

  test('an empty message is too short', () => {
    expect(problemsOf({ tools: [], message: '' })).toEqual([
      'message: Too small: expected string to have >=1 characters',
    ]);
  });

  test('maxInvocations must be positive', () => {
    expect(problemsOf({ tools: [], message: 'hello', maxInvocations: 0 })).toEqual([
      'maxInvocations: Too small: expected number to be >0',
    ]);
  });

  test('an empty terminating.toolIds says to give at least one tool id', () => {
    expect(problemsOf({ tools: ['finish'], message: 'go', terminating: { toolIds: [] } })).toEqual([
      'terminating.toolIds: give at least one tool id',
    ]);
  });

  test('a negative consecutiveNudges is rejected', () => {
    const problems = problemsOf({
      tools: ['finish'],
      message: 'go',
      terminating: { toolIds: ['finish'], consecutiveNudges: -1 },
    });

    expect(problems).toEqual(['terminating.consecutiveNudges: Too small: expected number to be >=0']);
  });

  test('a message with an unknown role is reported with an indexed path', () => {
    const problems = problemsOf({
      tools: [],
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'robot', content: 'beep' },
      ],
    });

    expect(problems).toEqual([
      "messages[1].role: Invalid discriminator value. Expected 'system' | 'developer' | 'user' | 'assistant' | 'tool'",
    ]);
  });
});

describe('parseAgentInput cross-field rules', () => {
  test('neither message nor messages asks for one of them', () => {
    expect(problemsOf({ tools: [] })).toEqual([
      'message: give `message`, or a non-empty `messages` to continue a conversation',
    ]);
  });

  test('an empty messages array without message is not enough', () => {
    expect(problemsOf({ tools: [], messages: [] })).toEqual([
      'message: give `message`, or a non-empty `messages` to continue a conversation',
    ]);
  });

  test('a tool listed twice is named', () => {
    expect(problemsOf({ tools: ['calculator', 'read_file', 'calculator'], message: 'hello' })).toEqual([
      'tools: tool "calculator" is listed twice',
    ]);
  });

  test('a terminating tool that is not among the tools is reported at its index', () => {
    const problems = problemsOf({
      tools: ['calculator', 'finish'],
      message: 'go',
      terminating: { toolIds: ['finish', 'task_complete'] },
    });

    expect(problems).toEqual([
      'terminating.toolIds[1]: "task_complete" is not one of this run\'s tools (calculator, finish); add it to `tools`',
    ]);
  });

  test('a terminating tool with no tools at all says "none"', () => {
    expect(problemsOf({ tools: [], message: 'go', terminating: { toolIds: ['finish'] } })).toEqual([
      'terminating.toolIds[0]: "finish" is not one of this run\'s tools (none); add it to `tools`',
    ]);
  });

  test('every missing terminating tool gets its own problem', () => {
    const problems = problemsOf({ tools: [], message: 'go', terminating: { toolIds: ['finish', 'stop'] } });

    expect(problems).toEqual([
      'terminating.toolIds[0]: "finish" is not one of this run\'s tools (none); add it to `tools`',
      'terminating.toolIds[1]: "stop" is not one of this run\'s tools (none); add it to `tools`',
    ]);
  });

  test('an unanswered tool call is reported at the assistant message that made it', () => {
    const problems = problemsOf({
      tools: [],
      messages: [{ role: 'user', content: 'what is 6*7?' }, assistantCalling('call_1')],
    });

    expect(problems).toEqual([
      'messages[1]: tool call "call_1" has no tool message answering it; the provider would reject this conversation',
    ]);
  });

  test('only the first unanswered call of a partly answered batch is reported', () => {
    const problems = problemsOf({
      tools: [],
      messages: [
        { role: 'user', content: 'sum these' },
        assistantCalling('call_1', 'call_2', 'call_3'),
        toolAnswer('call_1'),
      ],
    });

    expect(problems).toEqual([
      'messages[1]: tool call "call_2" has no tool message answering it; the provider would reject this conversation',
    ]);
  });

  test('a tool of its own named result_cache is refused while the runner offers its own (caching on), and accepted otherwise', () => {
    expect(problemsOf({ tools: ['result_cache'], message: 'go', resultProcessing: { inlineThreshold: 100 } })).toEqual([
      'tools: "result_cache" is the runner\'s own tool when resultProcessing.inlineThreshold is set; rename your tool or leave caching off',
    ]);
    expect(
      parseValid({ tools: ['result_cache'], message: 'go', resultProcessing: { extractThreshold: 100 } }).tools,
    ).toEqual(['result_cache']);
  });

  test('several rules broken at once are all reported, in rule order', () => {
    const problems = problemsOf({ tools: ['finish', 'finish'], terminating: { toolIds: ['stop'] } });

    expect(problems).toEqual([
      'message: give `message`, or a non-empty `messages` to continue a conversation',
      'tools: tool "finish" is listed twice',
      'terminating.toolIds[0]: "stop" is not one of this run\'s tools (finish, finish); add it to `tools`',
    ]);
  });
});

describe('parseAgentInput restrictOutput (restricted output)', () => {
  test('defaults: disabled, the specified message, unlimited injections', () => {
    expect(parseValid({ tools: [], message: 'hi', restrictOutput: {} }).restrictOutput).toEqual({
      enabled: false,
      message: DEFAULT_RESTRICTION_MESSAGE,
      maxInjections: 0,
    });
  });

  test('the default message is the specified text', () => {
    expect(DEFAULT_RESTRICTION_MESSAGE).toBe(
      "Do not produce a final answer directly. Before finishing, call a tool. If no tool is needed, call the 'finish' tool.",
    );
  });

  test('negative or fractional maxInjections, an empty message and unknown keys are refused with their paths', () => {
    expect(problemsOf({ tools: [], message: 'hi', restrictOutput: { maxInjections: -1 } })[0]).toMatch(
      /^restrictOutput\.maxInjections: Too small/,
    );
    expect(problemsOf({ tools: [], message: 'hi', restrictOutput: { maxInjections: 1.5 } })[0]).toMatch(
      /^restrictOutput\.maxInjections: /,
    );
    expect(problemsOf({ tools: [], message: 'hi', restrictOutput: { message: '' } })[0]).toMatch(
      /^restrictOutput\.message: Too small/,
    );
    expect(problemsOf({ tools: [], message: 'hi', restrictOutput: { enable: true } })).toEqual([
      'restrictOutput: Unrecognized key: "enable"',
    ]);
  });
});

describe('input bounds (INPUT_BOUNDS)', () => {
  /** `{ any: [ ... { maxMessages: 1 } ... ] }`, `levels` deep, built without recursion. */
  const deepStopWhen = (levels: number): unknown => {
    let condition: unknown = { maxMessages: 1 };
    for (let level = 0; level < levels; level += 1) condition = { any: [condition] };
    return condition;
  };

  test('stopWhen nested 3,000 levels is refused, naming the field, instead of overflowing the stack', () => {
    const [problem] = problemsOf({ tools: [], message: 'hi', stopWhen: deepStopWhen(3000) });
    expect(problem).toMatch(
      new RegExp(
        `^stopWhen: nested more than ${INPUT_BOUNDS.depth} levels deep \\(at stopWhen\\.any\\[0\\]\\.any\\[0\\]`,
      ),
    );
  });

  test('stopWhen nested as deep as the bound allows parses (any/all take two levels each)', () => {
    expect(
      parseValid({ tools: [], message: 'hi', stopWhen: deepStopWhen((INPUT_BOUNDS.depth - 2) / 2) }).stopWhen,
    ).toBeDefined();
  });

  test.each([
    ['model', { model: 'm'.repeat(INPUT_BOUNDS.modelChars + 1) }, 'model: Too big'],
    ['instructions', { instructions: 'i'.repeat(INPUT_BOUNDS.textChars + 1) }, 'instructions: Too big'],
    ['message', { message: 'x'.repeat(INPUT_BOUNDS.textChars + 1) }, 'message: Too big'],
    ['a tool name', { tools: ['t'.repeat(INPUT_BOUNDS.nameChars + 1)] }, 'tools[0]: Too big'],
    ['tools', { tools: Array.from({ length: INPUT_BOUNDS.tools + 1 }, (_, index) => `t${index}`) }, 'tools: Too big'],
    [
      'messages',
      { messages: Array.from({ length: INPUT_BOUNDS.messages + 1 }, () => ({ role: 'user', content: 'x' })) },
      'messages: Too big',
    ],
    [
      'a message content',
      { messages: [{ role: 'user', content: 'x'.repeat(INPUT_BOUNDS.textChars + 1) }] },
      'messages[0].content: Too big',
    ],
    [
      'a nudge message',
      {
        tools: ['finish'],
        terminating: { toolIds: ['finish'], nudgeMessage: 'n'.repeat(INPUT_BOUNDS.shortTextChars + 1) },
      },
      'terminating.nudgeMessage: Too big',
    ],
    ['a duration', { timeout: `${'1'.repeat(INPUT_BOUNDS.durationChars)}s` }, 'timeout'],
    [
      'any members',
      { stopWhen: { any: Array.from({ length: INPUT_BOUNDS.stopConditionMembers + 1 }, () => ({ maxMessages: 1 })) } },
      'stopWhen.any: Too big',
    ],
    [
      'a textMention',
      { stopWhen: { textMention: 'x'.repeat(INPUT_BOUNDS.shortTextChars + 1) } },
      'stopWhen.textMention: Too big',
    ],
    [
      'custom params',
      { stopWhen: { custom: 'c', params: { text: 'p'.repeat(INPUT_BOUNDS.paramsBytes) } } },
      'stopWhen.params: params must be at most',
    ],
    [
      'perTool entries',
      {
        resultProcessing: {
          perTool: Object.fromEntries(Array.from({ length: INPUT_BOUNDS.tools + 1 }, (_, index) => [`t${index}`, 10])),
        },
      },
      'resultProcessing.perTool: at most',
    ],
  ])('%s past its bound is refused, naming the field', (_name, fields, expected) => {
    expect(problemsOf({ tools: [], message: 'hi', ...fields }).join(' | ')).toContain(expected);
  });

  test('values at their bounds parse', () => {
    const input = parseValid({
      tools: Array.from({ length: INPUT_BOUNDS.tools }, (_, index) => `t${index}`.padEnd(INPUT_BOUNDS.nameChars, 'x')),
      model: 'm'.repeat(INPUT_BOUNDS.modelChars),
      message: 'x'.repeat(INPUT_BOUNDS.textChars),
      stopWhen: { custom: 'c', params: { text: 'p'.repeat(INPUT_BOUNDS.paramsBytes - 20) } },
    });
    expect(input.tools).toHaveLength(INPUT_BOUNDS.tools);
  });

  test('many problems are listed short and counted, so the failure stays small', () => {
    const problems = problemsOf({
      tools: [],
      messages: Array.from({ length: 100 }, () => ({ role: 'nobody' })),
      ['k'.repeat(100_000)]: 1,
    });
    expect(problems).toHaveLength(INPUT_BOUNDS.problems + 1);
    expect(problems.at(-1)).toMatch(/^\.\.\. and \d+ more problems$/);
    for (const problem of problems) expect(problem.length).toBeLessThanOrEqual(INPUT_BOUNDS.problemChars);
  });

  test('an input that throws while it is read becomes a problem, not a throw', () => {
    const hostile = { tools: [], message: 'hi' };
    Object.defineProperty(hostile, 'model', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    expect(problemsOf(hostile)).toEqual(['input: could not be checked (boom)']);
  });
});
