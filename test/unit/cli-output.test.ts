import { describeEvent } from '../../src/cli/event-lines';
import { exitCodeForOutcome } from '../../src/cli/exit-codes';
import { describeOutcome } from '../../src/cli/outcome-lines';
import { createOutput } from '../../src/cli/output';
import { formatRunTable } from '../../src/cli/run-table';
import { shellWord } from '../../src/cli/steering-commands';
import type { RunOutcome } from '../../src/client/run-control';
import type { AgentResult } from '../../src/shared/agent-result';
import type { RunEvent, RunEventDetails, RunEventType, UnknownRunEvent } from '../../src/shared/run-events';

const AT = '2025-01-01T00:00:00.000Z';
const event = <Type extends RunEventType>(type: Type, details: RunEventDetails<Type>): RunEvent =>
  ({ seq: 1, at: AT, type, ...(details as object) }) as RunEvent;
/** An event as a worker of another version may answer it: any type, any fields. */
const received = (type: string, details: Record<string, unknown>): UnknownRunEvent => ({
  seq: 1,
  at: AT,
  type,
  ...details,
});

/** One event of every type, as the runner writes it: the compiler says when a type is missing. */
const EVERY_EVENT: { [Type in RunEventType]: RunEventDetails<Type> } = {
  'run-start': { tools: ['calculator', 'finish'], model: 'demo' },
  'run-take-over': { iteration: 2, temporalRuns: 2 },
  'iteration-start': { iteration: 2, messages: 3 },
  'observation-masking': {
    iteration: 4,
    masked: [{ toolCallId: 'call-1-1', toolName: 'read_file', iteration: 1, tokens: 600 }],
    tokensSaved: 600,
  },
  'context-release': { iteration: 5, callId: 'call-5-0', released: [2, 3], ignored: 1, totalReleased: 2 },
  compaction: {
    iteration: 6,
    throughIndex: 8,
    messagesSummarised: 9,
    tokensBefore: 4200,
    tokensAfter: 900,
    summaryCut: false,
    usage: { promptTokens: 4000, completionTokens: 200, totalTokens: 4200 },
    model: 'demo',
  },
  'model-response': {
    iteration: 2,
    toolCalls: [],
    content: 'All\n done.',
    usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
  },
  'loop-detection': { iteration: 3, toolName: 'calculator', count: 3, action: 'warn' },
  'tool-call-start': { iteration: 2, callId: 'call-2-1', toolName: 'calculator', arguments: { expression: '1+1' } },
  'tool-call-end': {
    iteration: 2,
    callId: 'call-2-1',
    toolName: 'calculator',
    durationMs: 12,
    isError: false,
    output: '2',
  },
  'nested-agent-start': {
    iteration: 2,
    callId: 'call-2-1',
    toolName: 'researcher',
    workflowId: 'run/call-2-1',
    runId: 'r1',
    depth: 1,
  },
  'nested-agent-end': {
    iteration: 2,
    callId: 'call-2-1',
    toolName: 'researcher',
    workflowId: 'run/call-2-1',
    runId: 'r1',
    outcome: 'completed',
    terminationReason: 'complete',
    usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
  },
  'tool-result-truncation': { callId: 'call-2-1', toolName: 'read_file', originalChars: 900, keptChars: 100 },
  'tool-result-extraction': {
    iteration: 2,
    callId: 'call-2-1',
    toolName: 'read_file',
    originalChars: 9000,
    extractedChars: 400,
    originalTokens: 2250,
    extractedTokens: 100,
    cut: false,
    usage: { promptTokens: 2300, completionTokens: 100, totalTokens: 2400 },
    model: 'cheap',
  },
  'tool-result-extraction-failure': {
    iteration: 2,
    callId: 'call-2-1',
    toolName: 'read_file',
    reason: 'the extraction call failed: 400',
    errorType: 'ModelCall.BadRequest',
  },
  'tool-result-caching': {
    iteration: 2,
    callId: 'call-2-1',
    toolName: 'read_file',
    ref: 'cache-1',
    originalChars: 9000,
    originalTokens: 2250,
    summaryTokens: 300,
    dropped: [],
  },
  'circuit-breaker-trip': { iteration: 5, toolName: 'shell', errorText: 'Error: timeout', count: 5 },
  'output-rejection': {
    iteration: 2,
    source: 'answer_tool',
    problems: ['#/city: Instance type "number" is invalid. Expected "string".'],
    corrections: 1,
  },
  'stop-condition-match': { condition: 'maxIterations(3)', detail: '3 iterations' },
  'nudge-injection': { iteration: 1, consecutiveNudges: 1, restrictionInjections: 0 },
  'restriction-injection': { iteration: 1, consecutiveNudges: 0, restrictionInjections: 1 },
  'loop-warning-injection': { iteration: 3, consecutiveNudges: 0, restrictionInjections: 0 },
  'error-context-injection': { iteration: 1, consecutiveNudges: 2, restrictionInjections: 0 },
  'continuation-injection': { iteration: 2, consecutiveNudges: 0, restrictionInjections: 0 },
  'approval-request': { callId: 'call-3-1', toolName: 'write_file', arguments: { path: 'a.md' } },
  'approval-decision': {
    callId: 'call-3-1',
    toolName: 'write_file',
    decision: 'approve',
    arguments: { path: 'a.md' },
    decidedAt: AT,
    via: 'update',
  },
  'decision-rejection': { via: 'signal', problem: 'No pending call "x".', input: '{"callId":"x"}' },
  'approval-abandonment': { callId: 'call-3-1', toolName: 'write_file' },
  'nested-approval-forward': { callId: 'call-2-1/call-1-1', workflowId: 'run/call-2-1', decision: 'approve' },
  'input-request': { callId: 'call-2-1', question: 'Which file?' },
  'input-timeout': { callId: 'call-2-1', limit: '10m' },
  'mcp-elicitation-end': { callId: 'call-2-1', elicitationId: 'call-2-1#1', outcome: 'abandoned' },
  'mcp-sampling': {
    callId: 'call-2-1',
    server: 'files',
    model: 'gpt-4o-mini',
    usage: { promptTokens: 30, completionTokens: 12, totalTokens: 42 },
  },
  'user-message': { content: 'notes.md' },
  'user-message-rejection': { reason: 'empty content' },
  'stop-request': { reason: null },
  'terminate-request': { reason: 'enough' },
  'limits-change': { before: { maxInvocations: 2, tokenBudget: {} }, after: { maxInvocations: 5, tokenBudget: {} } },
  'run-timeout': { limit: '5s' },
  'run-hand-over': { iteration: 2, historyBytes: 10_132 },
  'run-end': { status: 'completed', terminationReason: { type: 'complete' } },
};

describe('event lines', () => {
  test('an approval request comes with the exact commands that decide it, quoted for the shell', () => {
    expect(
      describeEvent(
        event('approval-request', { callId: 'call_1', toolName: 'write_file', arguments: { path: 'a.md' } }),
        "team's run",
      ),
    ).toEqual([
      '  ? write_file {"path":"a.md"} needs approval (call call_1). Decide from another terminal:',
      "      agent-runner approve 'team'\\''s run' call_1",
      `      agent-runner deny 'team'\\''s run' call_1 --reason "..."`,
    ]);
  });

  test('tool calls, results, decisions and iterations', () => {
    const lines = [
      event('iteration-start', { iteration: 2, messages: 3 }),
      event('tool-call-start', { iteration: 2, callId: 'c', toolName: 'calculator', arguments: { expression: '1+1' } }),
      event('tool-call-start', {
        iteration: 2,
        callId: 'd',
        toolName: 'calculator',
        argumentsText: '{"expression": "1+',
      }),
      event('tool-call-end', {
        iteration: 2,
        callId: 'c',
        toolName: 'calculator',
        durationMs: 12,
        isError: true,
        output: 'Error:\n bad',
      }),
      event('approval-decision', {
        callId: 'c',
        toolName: 'write_file',
        decision: 'approve',
        arguments: { a: 2 },
        originalArguments: { a: 1 },
        decidedAt: AT,
        via: 'signal',
      }),
      event('approval-decision', {
        callId: 'c',
        toolName: 'write_file',
        decision: 'deny',
        arguments: { a: 1 },
        reason: 'no decision within 1m',
        decidedAt: AT,
        via: 'timeout',
      }),
      event('run-end', { status: 'completed', terminationReason: { type: 'complete' } }),
      received('something-new', { detail: 1 }),
    ].flatMap((item) => describeEvent(item, 'run'));
    expect(lines).toEqual([
      '[iteration 2] calling the model…',
      '  → calculator {"expression":"1+1"}',
      '  → calculator {"expression": "1+',
      '  ✗ calculator (12 ms): Error: bad',
      '  ✓ approved write_file (call c) with arguments {"a":2} (by signal)',
      '  ✗ denied write_file (call c): no decision within 1m (no decision in time)',
      '  something-new {"detail":1}',
    ]);
  });

  test('every event type has its lines', () => {
    const lines = Object.fromEntries(
      Object.entries(EVERY_EVENT).map(([type, details]) => [type, describeEvent(received(type, details), 'run')]),
    );
    expect(lines).toEqual({
      'run-start': ['Run started with tools calculator, finish on model demo.'],
      'run-take-over': ['  run-take-over {"iteration":2,"temporalRuns":2}'],
      'iteration-start': ['[iteration 2] calling the model…'],
      'observation-masking': ['  old tool results masked, 600 tokens saved'],
      'context-release': ['  the model released iterations 2, 3 for masking (1 ignored)'],
      compaction: ['  conversation compacted: 9 messages summarised, about 4200 → 900 tokens'],
      'model-response': ['  model: All done.'],
      'nested-approval-forward': [
        '  decision (approve) on call-2-1/call-1-1 forwarded to the nested agent run/call-2-1',
      ],
      'nested-agent-start': ['  ⤷ nested agent researcher started at depth 1: workflow run/call-2-1'],
      'nested-agent-end': ['  ⤶ nested agent researcher completed, 3 tokens'],
      'loop-detection': ['  loop detected: calculator called 3 times in a row (warn)'],
      'tool-call-start': ['  → calculator {"expression":"1+1"}'],
      'tool-call-end': ['  ← calculator (12 ms): 2'],
      'tool-result-truncation': ["  (read_file's result was cut before the model saw it)"],
      'tool-result-extraction': ["  (read_file's result was condensed for the model: about 2250 → 100 tokens)"],
      'tool-result-extraction-failure': [
        "  (read_file's result could not be condensed and goes to the model whole: the extraction call failed: 400)",
      ],
      'tool-result-caching': ["  (read_file's result was cached as cache-1; the model sees a summary)"],
      'circuit-breaker-trip': ['  circuit breaker: shell failed 5 times in a row: Error: timeout'],
      'output-rejection': [
        '  answer not valid against the output schema (1 so far), sent back: #/city: Instance type "number" is invalid. Expected "string".',
      ],
      'stop-condition-match': ['  stop condition met: maxIterations(3) (3 iterations)'],
      'nudge-injection': ['  nudge: the model answered without calling a terminating tool (1 in a row)'],
      'restriction-injection': ['  restriction: the model must call a tool before it may finish'],
      'loop-warning-injection': ['  loop warning sent to the model'],
      'error-context-injection': ['  the model answered without calling a tool; told to call one (2 in a row)'],
      'continuation-injection': ['  the answer was cut by the output token limit; the model is asked to continue it'],
      'approval-request': [
        '  ? write_file {"path":"a.md"} needs approval (call call-3-1). Decide from another terminal:',
        '      agent-runner approve run call-3-1',
        '      agent-runner deny run call-3-1 --reason "..."',
      ],
      'approval-decision': ['  ✓ approved write_file (call call-3-1) (by update)'],
      'decision-rejection': ['  a decision sent by signal was rejected: No pending call "x".'],
      'approval-abandonment': ['  approval of write_file (call call-3-1) abandoned: the run is stopping'],
      'input-request': [
        '  ? the model asks: Which file?. Answer from another terminal:',
        '      agent-runner answer run "..."',
      ],
      'input-timeout': ['  no answer within 10m'],
      'mcp-elicitation-end': ["  the MCP server's question of call-2-1 was abandoned"],
      'mcp-sampling': ['  MCP server "files" sampled gpt-4o-mini during call-2-1: 42 tokens, counted in the run'],
      'user-message': ['  user: notes.md'],
      'user-message-rejection': ['  a user message was rejected: empty content'],
      'stop-request': ['  stop requested'],
      'terminate-request': ['  terminate requested: enough'],
      'limits-change': ['  limits changed to {"maxInvocations":5,"tokenBudget":{}}'],
      'run-timeout': ["  the run's timeout (5s) passed: stopping"],
      'run-hand-over': ['  run-hand-over {"iteration":2,"historyBytes":10132}'],
      'run-end': [],
    });
  });

  test('an event under a name of before the noun-first renames is an unknown event: those names never left development', () => {
    expect(
      describeEvent(
        received('loop-detected', { iteration: 3, toolName: 'calculator', count: 3, action: 'stop' }),
        'run',
      ),
    ).toEqual(['  loop-detected {"iteration":3,"toolName":"calculator","count":3,"action":"stop"}']);
  });

  test('an event this version does not know, or whose fields it does not know, is printed as its type and fields', () => {
    expect(describeEvent(received('tool-call-retry', { callId: 'c', attempt: 2 }), 'run')).toEqual([
      '  tool-call-retry {"callId":"c","attempt":2}',
    ]);
    expect(describeEvent(received('run-start', { tools: 'calculator' }), 'run')).toEqual([
      '  run-start {"tools":"calculator"}',
    ]);
    expect(describeEvent(received('constructor', {}), 'run')).toEqual(['  constructor {}']);
  });
});

describe('outcomes', () => {
  const result = {
    response: 'All done.',
    terminationReason: { type: 'terminating_tool', toolName: 'finish', callId: 'c' },
    iterations: 1,
    usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
  } as AgentResult;

  test('each kind has its line and its exit code', () => {
    expect(describeOutcome({ kind: 'completed', result })).toEqual([
      '',
      'Response: All done.',
      'Completed: terminating_tool (finish was called) · 1 iteration · 12 tokens (10 prompt, 2 completion).',
    ]);
    const failed: RunOutcome = {
      kind: 'failed',
      type: 'MaxInvocationsExceeded',
      message: 'Max invocations exceeded',
      details: [{ iterations: 3, usage: result.usage }],
    };
    expect(describeOutcome(failed)[1]).toBe(
      'Failed (MaxInvocationsExceeded): Max invocations exceeded · 3 iterations · 12 tokens (10 prompt, 2 completion).',
    );
    // A message that is a sentence of its own keeps one full stop, after the cost.
    const tooLarge: RunOutcome = {
      kind: 'failed',
      type: 'ContextTooLarge',
      message: 'The conversation is too large. Split the work.',
      details: [{ iterations: 3, usage: result.usage }],
    };
    expect(describeOutcome(tooLarge)[1]).toBe(
      'Failed (ContextTooLarge): The conversation is too large. Split the work · 3 iterations · 12 tokens (10 prompt, 2 completion).',
    );
    // Token details the provider reported are named; those it did not are left out, not shown as 0.
    expect(
      describeOutcome({
        kind: 'completed',
        result: { ...result, usage: { ...result.usage, cachedPromptTokens: 8, reasoningTokens: 1 } },
      })[2],
    ).toBe(
      'Completed: terminating_tool (finish was called) · 1 iteration · 12 tokens (10 prompt, 8 of them cached, 2 completion, 1 of them reasoning).',
    );
    expect(describeOutcome({ kind: 'terminated', reason: 'terminated in Temporal: no reason given' })).toEqual([
      '',
      'Terminated: terminated in Temporal: no reason given.',
    ]);
    expect([
      exitCodeForOutcome({ kind: 'completed', result }),
      exitCodeForOutcome(failed),
      exitCodeForOutcome({ kind: 'failed', type: 'InvalidAgentInput', message: '', details: [] }),
      exitCodeForOutcome({ kind: 'terminated', reason: 'x' }),
    ]).toEqual([0, 1, 2, 3]);
  });
});

describe('output', () => {
  test('under --json, notices go to stderr so stdout stays NDJSON; held lines come out in order', () => {
    const written = { stdout: '', stderr: '' };
    const output = createOutput(true, {
      stdout: { write: (text: string) => (written.stdout += text) },
      stderr: { write: (text: string) => (written.stderr += text) },
    });
    output.notice('Started run r');
    output.hold();
    output.jsonLine({ seq: 1 });
    expect(written.stdout).toBe('');
    output.release();
    output.jsonLine({ seq: 2 });
    expect(written).toEqual({ stdout: '{"seq":1}\n{"seq":2}\n', stderr: 'Started run r\n' });
  });

  test('the run table lines up its columns', () => {
    expect(
      formatRunTable([
        {
          workflowId: 'a',
          runId: 'r',
          temporalStatus: 'RUNNING',
          status: 'waiting_for_approval',
          iterations: 1,
          totalTokens: 120,
          costUsd: 0.00042,
          pendingApprovals: 1,
          startTime: '2025-01-01T10:00:00.123Z',
        },
        { workflowId: 'longer-id', runId: 'r', temporalStatus: 'TERMINATED', startTime: '2025-01-01T09:00:00.000Z' },
      ]),
    ).toEqual([
      'ID         STATUS                ITERATIONS  TOKENS  COST     PENDING  STARTED',
      'a          waiting_for_approval  1           120     $0.0004  1        2025-01-01 10:00:00Z',
      'longer-id  terminated            -           -       -        -        2025-01-01 09:00:00Z',
    ]);
    expect(formatRunTable([])).toEqual(['No runs match.']);
  });

  test('shell words: safe ones stay bare', () => {
    expect(shellWord('agent-1b2c')).toBe('agent-1b2c');
    expect(shellWord('a b')).toBe("'a b'");
  });
});
