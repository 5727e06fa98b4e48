import { CHAOS_MODEL, chaosAgent, chaosTask } from '../../bench/chaos/chaos-agent';
import type { SideEffectRecord } from '../../bench/chaos/chaos-tool';
import { countFeatureCoverage } from '../../bench/chaos/feature-coverage';
import { compareOutcomes, firstDifference, type ChildRun, type RunOutcome } from '../../bench/chaos/run-comparison';
import { printPhaseReports } from '../../bench/chaos/phase-report';
import { summarizeSideEffects } from '../../bench/chaos/side-effects';
import type { ChatCompletionRequest } from '../../src/scripted-model/script';
import type { AgentResult } from '../../src/shared/agent-result';

/** A finished chaos run: two steps, then finish. */
function result(): AgentResult {
  return {
    schemaVersion: 1,
    response: 'Run k01 done after 2 steps.',
    terminationReason: { type: 'terminate_response', toolName: 'finish', callId: 'call_2_finish' },
    iterations: 3,
    invocations: 3,
    consecutiveNudges: 0,
    restrictionInjections: 0,
    usage: { promptTokens: 300, completionTokens: 60, totalTokens: 360 },
    messages: [
      { role: 'user', content: 'Chaos run k01: 3 iterations.' },
      {
        role: 'assistant',
        content: 'Starting.',
        tool_calls: [{ id: 'call_0_0', type: 'function', function: { name: 'chaos_step', arguments: '{"step":0}' } }],
        meta: { iteration: 1 },
      },
      { role: 'tool', tool_call_id: 'call_0_0', content: 'step 0.0 of k01 done: 1a2b3c4d', meta: { iteration: 1 } },
    ],
    generatedMessages: [{ sender: 'ai', message: 'Run k01 done after 2 steps.' }],
  };
}

const completed = (value: AgentResult, children?: ChildRun[]): RunOutcome => ({
  status: 'completed',
  result: value,
  ...(children === undefined ? {} : { children }),
});

describe('compareOutcomes', () => {
  test("the readers' record of a closed run is compared without its times and durations", () => {
    const withRecord = (at: string, durationMs: number, output: string, prefix = 'reference') =>
      ({
        ...result(),
        closedRun: {
          state: { status: 'completed', startedAt: at },
          events: {
            nextSeq: 3,
            recent: [
              { seq: 1, at, type: 'nested-agent-start', workflowId: `${prefix}-k01/call-1`, runId: `${prefix}-run` },
              { seq: 2, at, type: 'tool-call-end', durationMs, output },
            ],
          },
        },
      }) as AgentResult;
    const reference = completed(withRecord('2026-11-28T06:58:35.063Z', 12, 'done'));
    const crashed = completed(withRecord('2026-11-28T06:59:45.806Z', 950, 'done', 'kill'));

    expect(compareOutcomes(reference, crashed).identical).toBe(true);
    expect(compareOutcomes(reference, completed(withRecord('2026-11-28T06:58:35.063Z', 12, 'other'))).identical).toBe(
      false,
    );
  });

  test('the calls of one batch may end in any order; which events each call wrote still counts', () => {
    const withEvents = (recent: unknown[]) =>
      completed({
        ...result(),
        closedRun: { state: { status: 'completed' }, events: { nextSeq: 6, recent } },
      } as AgentResult);
    const start = (callId: string, seq: number) => ({ seq, type: 'tool-call-start', callId });
    const end = (callId: string, seq: number, output = 'done') => ({ seq, type: 'tool-call-end', callId, output });
    const answer = { seq: 5, type: 'model-response' };
    const reference = withEvents([
      start('call-2-1', 1),
      start('call-2-2', 2),
      end('call-2-2', 3),
      end('call-2-1', 4),
      answer,
    ]);

    const otherOrder = withEvents([
      start('call-2-1', 1),
      start('call-2-2', 2),
      end('call-2-1', 3),
      end('call-2-2', 4),
      answer,
    ]);
    expect(compareOutcomes(reference, otherOrder).identical).toBe(true);
    const otherOutput = withEvents([
      start('call-2-1', 1),
      start('call-2-2', 2),
      end('call-2-1', 3, 'other'),
      end('call-2-2', 4),
      answer,
    ]);
    expect(compareOutcomes(reference, otherOutput).identical).toBe(false);
    const answerMoved = withEvents([
      start('call-2-1', 1),
      answer,
      start('call-2-2', 2),
      end('call-2-2', 3),
      end('call-2-1', 4),
    ]);
    expect(compareOutcomes(reference, answerMoved).identical).toBe(false);
  });

  test('equal results are identical, whatever the key order', () => {
    const reordered = Object.fromEntries(Object.entries(result()).reverse()) as AgentResult;
    expect(compareOutcomes(completed(result()), completed(reordered))).toEqual({ identical: true });
  });

  test('a tool result that became an error is a difference, named by its path and both values', () => {
    const crashed = result();
    crashed.messages[2] = {
      role: 'tool',
      tool_call_id: 'call_0_0',
      content: 'Error: tool "chaos_step" timed out (HEARTBEAT)',
      meta: { iteration: 1 },
    };

    expect(compareOutcomes(completed(result()), completed(crashed))).toEqual({
      identical: false,
      difference:
        'result.messages[2].content: expected "step 0.0 of k01 done: 1a2b3c4d", found "Error: tool \\"chaos_step\\" timed out (HEARTBEAT)"',
    });
  });

  test('every field of the result counts: the termination reason, the counters and the usage', () => {
    const otherReason = { ...result(), terminationReason: { type: 'complete' as const } };
    const moreInvocations = { ...result(), invocations: 4 };
    const moreTokens = { ...result(), usage: { ...result().usage, totalTokens: 361 } };

    expect(compareOutcomes(completed(result()), completed(otherReason))).toMatchObject({
      identical: false,
      difference: expect.stringMatching(/^result\.terminationReason\.type: /),
    });
    expect(compareOutcomes(completed(result()), completed(moreInvocations))).toEqual({
      identical: false,
      difference: 'result.invocations: expected 3, found 4',
    });
    expect(compareOutcomes(completed(result()), completed(moreTokens))).toEqual({
      identical: false,
      difference: 'result.usage.totalTokens: expected 360, found 361',
    });
  });

  test('an extra or a missing message is a difference', () => {
    const longer = result();
    longer.messages.push({ role: 'assistant', content: 'again' });

    expect(compareOutcomes(completed(result()), completed(longer))).toEqual({
      identical: false,
      difference: 'result.messages: 3 entries expected, 4 found',
    });
    expect(compareOutcomes(completed(longer), completed(result()))).toEqual({
      identical: false,
      difference: 'result.messages: 4 entries expected, 3 found',
    });
  });

  test('a stuck or failed run is never identical, and neither is any run against a reference that did not complete', () => {
    expect(compareOutcomes(completed(result()), { status: 'stuck' })).toEqual({
      identical: false,
      difference: 'the run was still running at the deadline (stuck); crash-free it completed',
    });
    expect(
      compareOutcomes(completed(result()), { status: 'failed', failure: 'MaxInvocationsExceeded: 3 calls' }),
    ).toEqual({
      identical: false,
      difference: 'the run failed: MaxInvocationsExceeded: 3 calls; crash-free it completed',
    });
    expect(compareOutcomes({ status: 'failed', failure: 'X: y' }, { status: 'failed', failure: 'X: y' })).toEqual({
      identical: false,
      difference: 'the crash-free reference did not complete (failed: X: y)',
    });
  });
});

describe('an unfinished run at the deadline', () => {
  const slow: RunOutcome = {
    status: 'stuck',
    diagnosis: {
      progressing: true,
      lastEvent: 'activity-task-completed of chaos-k01',
      lastEventAgoMs: 4_000,
      pending: ['workflow task scheduled, attempt 1, scheduled 2 s ago'],
    },
  };
  const stalled: RunOutcome = {
    status: 'stuck',
    diagnosis: {
      progressing: false,
      lastEvent: 'workflow-task-timed-out of chaos-k02',
      lastEventAgoMs: 300_000,
      pending: ['workflow task scheduled, attempt 2, scheduled 300 s ago'],
    },
  };

  test('says whether it still moved and what it waited on', () => {
    expect(compareOutcomes(completed(result()), slow)).toEqual({
      identical: false,
      difference:
        'the run was still running at the deadline but progressing (last event activity-task-completed of chaos-k01, ' +
        '4 s before; workflow task scheduled, attempt 1, scheduled 2 s ago); crash-free it completed',
    });
    expect(compareOutcomes(completed(result()), stalled)).toMatchObject({
      difference: expect.stringContaining('(stuck: last event workflow-task-timed-out of chaos-k02, 300 s before;'),
    });
  });

  test('fails the phase either way, naming stuck runs apart from slow ones', () => {
    const reference = completed(result());
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    const problems: string[] = [];
    try {
      const code = printPhaseReports(
        [
          {
            title: 'Worker kills: 3 runs',
            runs: [
              { label: 'k00', workflowId: 'chaos-k00', reference, observed: reference },
              { label: 'k01', workflowId: 'chaos-k01', reference, observed: slow },
              { label: 'k02', workflowId: 'chaos-k02', reference, observed: stalled },
            ],
            sideEffects: summarizeSideEffects([], new Set()),
            notes: [],
            elapsedMs: 1_000,
          },
        ],
        problems,
        () => '1 s',
      );
      expect(code).toBe(1);
    } finally {
      log.mockRestore();
    }
    expect(lines).toContain('  stuck:                    2 (1 still progressing at the deadline)');
    expect(problems).toEqual([
      'Worker kills: 1 run(s) stuck',
      'Worker kills: 1 run(s) unfinished at the deadline but still progressing (a longer --deadline may pass)',
    ]);
  });
});

describe('compareOutcomes with nested agents', () => {
  /** A parent that delegated call-4-1 to a child whose Temporal run is `runId`, and the child's own result. */
  function withChild(runId: string, childResponse = 'Run k01.3 done after 1 steps.', runIds = [runId]): RunOutcome {
    const parent = result();
    parent.children = [
      { runId, toolName: 'chaos_delegate', usage: { promptTokens: 20, completionTokens: 4, totalTokens: 24 } },
    ];
    const child: ChildRun = {
      callId: 'call-4-1',
      runIds,
      interrupted: false,
      outcome: { status: 'completed', result: { ...result(), response: childResponse } },
    };
    return { status: 'completed', result: parent, children: [child] };
  }

  test("a child's Temporal run id differs in every run, and is compared as the call whose child had it", () => {
    expect(compareOutcomes(withChild('run-a'), withChild('run-b'))).toEqual({ identical: true });
  });

  test('a child started again under its workflow id (two Temporal runs) is a difference, even with the same answer', () => {
    expect(compareOutcomes(withChild('run-a'), withChild('run-c', undefined, ['run-b', 'run-c']))).toEqual({
      identical: false,
      difference: 'children[0].temporalRuns: expected 1, found 2',
    });
  });

  test("a child that ended otherwise is a difference in the child's own result", () => {
    expect(compareOutcomes(withChild('run-a'), withChild('run-b', 'Run k01.3 done after 2 steps.'))).toEqual({
      identical: false,
      difference:
        'children[0].outcome.result.response: expected "Run k01.3 done after 1 steps.", found "Run k01.3 done after 2 steps."',
    });
  });

  test('a parent that names a run none of its children had is a difference', () => {
    const observed = withChild('run-b');
    if (observed.status === 'completed' && observed.result.children?.[0] !== undefined)
      observed.result.children[0].runId = 'run-x';
    expect(compareOutcomes(withChild('run-a'), observed)).toEqual({
      identical: false,
      difference:
        'result.children[0].runId: expected "the child of call-4-1", found "run-x (a run of none of its children)"',
    });
  });

  test('a child missing, or one more, is a difference', () => {
    const none = withChild('run-b');
    if (none.status === 'completed') none.children = [];
    expect(compareOutcomes(withChild('run-a'), none)).toMatchObject({
      identical: false,
      difference: expect.stringMatching(/^result\.children\[0\]\.runId: /),
    });
    const twice = withChild('run-b');
    if (twice.status === 'completed') twice.children = [...(twice.children ?? []), ...(twice.children ?? [])];
    expect(compareOutcomes(withChild('run-a'), twice)).toEqual({
      identical: false,
      difference: 'children: 1 entries expected, 2 found',
    });
  });

  test('a result_cache slice that differs is a difference in the messages', () => {
    const slice = (text: string): RunOutcome => {
      const value = result();
      value.messages.push({
        role: 'tool',
        tool_call_id: 'call-3-1',
        content: `[cache-1: characters 1000 to 4138 of 4139; this is the end]\n${text}`,
      });
      return completed(value);
    };
    expect(compareOutcomes(slice('a1b2'), slice('a1b3'))).toMatchObject({
      identical: false,
      difference: expect.stringMatching(/^result\.messages\[3\]\.content: /),
    });
  });
});

describe('compareOutcomes on cached results numbered otherwise', () => {
  /** Two parallel calls' cached summaries, numbered `first` and `second`, and a read of the second one's slice. */
  function cachedPair(first: string, second: string, slice = 'a1b2'): RunOutcome {
    const value = result();
    const summary = (ref: string, step: string) =>
      `[Cached as ${ref}: the result of chaos_step is 4139 characters ... {"ref":"${ref}","offset":1000}]\nstep ${step}`;
    value.messages.push(
      { role: 'tool', tool_call_id: 'call-2-1', content: summary(first, '1.0') },
      { role: 'tool', tool_call_id: 'call-2-2', content: summary(second, '1.1') },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call-3-1',
            type: 'function',
            function: { name: 'result_cache', arguments: `{"ref":"${second}","offset":1000}` },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call-3-1',
        content: `[${second}: characters 1000 to 4138 of 4139; this is the end]\n${slice}`,
      },
    );
    return completed(value);
  }

  test('a run equal but for which cache-N its results got differs, and says so', () => {
    expect(compareOutcomes(cachedPair('cache-1', 'cache-2'), cachedPair('cache-2', 'cache-1'))).toEqual({
      identical: false,
      difference: expect.stringMatching(
        /^result\.messages\[3\]\.content: .* \(equal but for the numbering of cached results\)$/,
      ),
      onlyCacheRefs: true,
    });
  });

  test('a slice that differs is not a matter of numbering', () => {
    const comparison = compareOutcomes(cachedPair('cache-1', 'cache-2'), cachedPair('cache-2', 'cache-1', 'ffff'));
    expect(comparison).toMatchObject({ identical: false });
    expect(comparison).not.toHaveProperty('onlyCacheRefs');
  });
});

describe('countFeatureCoverage', () => {
  test('counts child runs at any depth, the interrupted ones, cached results and the result_cache reads answered with a slice', () => {
    const parent = result();
    parent.messages.push(
      {
        role: 'tool',
        tool_call_id: 'call-1-1',
        content: '[Cached as cache-1: the result of chaos_step is 4139 characters, ...]\nstep 0.0',
      },
      {
        role: 'assistant',
        content: 'Step 2',
        tool_calls: [
          {
            id: 'call-2-1',
            type: 'function',
            function: { name: 'result_cache', arguments: '{"ref":"cache-1","offset":1000}' },
          },
          { id: 'call-2-2', type: 'function', function: { name: 'result_cache', arguments: '{"ref":"cache-9"}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call-2-1',
        content: '[cache-1: characters 1000 to 4138 of 4139; this is the end]\n...',
      },
      {
        role: 'tool',
        tool_call_id: 'call-2-2',
        content: 'Error: result_cache: there is no cached result "cache-9"; the cache holds cache-1.',
      },
    );
    const grandchild: ChildRun = {
      callId: 'call-1-1',
      runIds: ['g1'],
      interrupted: true,
      outcome: completed(result()),
    };
    const child: ChildRun = {
      callId: 'call-3-1',
      runIds: ['c1', 'c2'],
      interrupted: false,
      outcome: completed(result(), [grandchild]),
    };
    const outcomes: RunOutcome[] = [completed(parent, [child]), { status: 'stuck' }];

    expect(countFeatureCoverage(outcomes)).toEqual({
      childRuns: 3,
      childRunsInterrupted: 1,
      cachedResults: 1,
      cacheReads: 1,
      mcpCalls: 0,
    });
  });
});

describe('firstDifference', () => {
  test('a key holding undefined counts as absent, as it does after JSON', () => {
    expect(firstDifference({ a: 1, b: undefined }, { a: 1 }, 'value')).toBeUndefined();
  });

  test('an array against an object, or null against an object, differs at that path', () => {
    expect(firstDifference({ list: [] }, { list: {} }, 'value')).toBe('value.list: expected [], found {}');
    expect(firstDifference({ meta: null }, { meta: {} }, 'value')).toBe('value.meta: expected null, found {}');
  });
});

describe('summarizeSideEffects', () => {
  const record = (workflowId: string, effect: string, key: string, attempt = 1): SideEffectRecord => ({
    key,
    effect,
    workflowId,
    callId: key.split(':')[1] ?? '',
    runId: 'run',
    attempt,
    at: '2026-11-22T20:00:00.000Z',
  });

  test('groups executions by run and side effect, not by key, so a repeat under another key is caught', () => {
    const summary = summarizeSideEffects(
      [
        record('w1', 'k01/0.0', 'w1:call_0_0'),
        record('w1', 'k01/0.0', 'w1:call_0_0', 2),
        record('w1', 'k01/1.0', 'w1:call_1_0'),
        record('w1', 'k01/1.0', 'w1:call_9_9', 2),
        record('w2', 'k01/0.0', 'w2:call_0_0'),
        record('other', 'x/0.0', 'other:call_0_0'),
      ],
      new Set(['w1', 'w2']),
    );

    expect(summary).toEqual({
      executions: 5,
      distinct: 3,
      repeated: [
        { effect: 'k01/0.0', workflowId: 'w1', times: 2, keys: ['w1:call_0_0'] },
        { effect: 'k01/1.0', workflowId: 'w1', times: 2, keys: ['w1:call_1_0', 'w1:call_9_9'] },
      ],
      keyMismatches: 1,
    });
  });
});

describe('summarizeSideEffects with nested agents', () => {
  test("a nested agent's side effects (workflow id `<run>/<call id>`) count under its run, and a repeat of one with another key is caught", () => {
    const record = (workflowId: string, key: string): SideEffectRecord => ({
      key,
      effect: 'k01.3/0.0',
      workflowId,
      callId: key.split(':')[1] ?? '',
      runId: 'run',
      attempt: 1,
      at: '2026-11-22T20:00:00.000Z',
    });
    const summary = summarizeSideEffects(
      [
        record('w1/call-4-1', 'w1/call-4-1:call-1-1'),
        record('w1/call-4-1', 'w1/call-4-1:call-1-2'),
        record('w10/call-4-1', 'w10/call-4-1:call-1-1'),
      ],
      new Set(['w1']),
    );

    expect(summary).toEqual({
      executions: 2,
      distinct: 1,
      repeated: [
        {
          effect: 'k01.3/0.0',
          workflowId: 'w1/call-4-1',
          times: 2,
          keys: ['w1/call-4-1:call-1-1', 'w1/call-4-1:call-1-2'],
        },
      ],
      keyMismatches: 1,
    });
  });
});

describe('chaosAgent', () => {
  const request = (messages: ChatCompletionRequest['messages']): ChatCompletionRequest => ({
    model: CHAOS_MODEL,
    messages,
  });
  const task = { role: 'user', content: chaosTask('k01', 3) };

  test('answers a request the same way every time, with call ids from the conversation, so a retried model call changes nothing', () => {
    const first = chaosAgent(request([task]));
    expect(chaosAgent(request([task]))).toEqual(first);
    expect(first).toEqual({
      content: 'Starting chaos run k01.',
      toolCalls: [{ id: 'call_0_0', name: 'chaos_step', arguments: { run: 'k01', step: 0, part: 0 } }],
    });
  });

  test('odd steps call the tool twice, quoting the results it was given (first line and length); the last iteration calls finish', () => {
    const afterStep0 = [
      task,
      { role: 'assistant', content: 'Starting chaos run k01.' },
      { role: 'tool', tool_call_id: 'call_0_0', content: 'r0\npadding' },
    ];
    expect(chaosAgent(request(afterStep0))).toEqual({
      content: 'Step 1; I was told: r0 (10 chars)',
      toolCalls: [0, 1].map((part) => ({
        id: `call_1_${part}`,
        name: 'chaos_step',
        arguments: { run: 'k01', step: 1, part },
      })),
    });
    const afterStep1 = [
      ...afterStep0,
      { role: 'assistant', content: '...' },
      { role: 'tool', tool_call_id: 'call_1_0', content: 'r1' },
      { role: 'tool', tool_call_id: 'call_1_1', content: 'Error: lost' },
    ];
    expect(chaosAgent(request(afterStep1))).toEqual({
      content: 'Step 2; I was told: r1 (2 chars) | Error: lost (11 chars)',
      toolCalls: [{ id: 'call_2_finish', name: 'finish', arguments: { note: 'Run k01 done after 2 steps.' } }],
    });
  });

  describe('with a nested agent and the result cache offered', () => {
    const tools = ['chaos_step', 'chaos_delegate', 'finish', 'result_cache'].map((name) => ({
      type: 'function',
      function: { name },
    }));
    const offered = (messages: ChatCompletionRequest['messages']): ChatCompletionRequest => ({
      model: CHAOS_MODEL,
      messages,
      tools,
    });
    const summary = (ref: string, offset: number) =>
      `[Cached as ${ref}: the result of chaos_step is 4139 characters, too long to show whole. Its first ${offset} characters follow. ` +
      `Read any part with the result_cache tool, e.g. {"ref":"${ref}","offset":${offset},"length":8000} (at most 8000 characters a call).]\nstep 0.0 of k01 done`;
    const sixSteps = { role: 'user', content: chaosTask('k01', 6) };
    const turn = (content: string, ...results: string[]) => [
      { role: 'assistant', content },
      ...results.map((result, index) => ({ role: 'tool', tool_call_id: `call_${index}`, content: result })),
    ];
    const afterStep1 = [
      sixSteps,
      ...turn('0', summary('cache-1', 1000)),
      ...turn('1', summary('cache-2', 1000), summary('cache-3', 1000)),
    ];

    test('step 2 reads back, with result_cache, the slices the oldest and the newest summaries offer', () => {
      expect(chaosAgent(offered(afterStep1))).toMatchObject({
        toolCalls: [
          { id: 'call_2_read0', name: 'result_cache', arguments: { ref: 'cache-1', offset: 1000, length: 8000 } },
          { id: 'call_2_read1', name: 'result_cache', arguments: { ref: 'cache-3', offset: 1000, length: 8000 } },
        ],
      });
    });

    test('step 3 hands a chaos task of its own to chaos_delegate, which the nested agent (the same model) does in one step', () => {
      const afterStep2 = [
        ...afterStep1,
        ...turn('2', '[cache-1: characters 1000 to 4138 of 4139; this is the end]\n...'),
      ];
      expect(chaosAgent(offered(afterStep2))).toMatchObject({
        toolCalls: [
          { id: 'call_3_delegate', name: 'chaos_delegate', arguments: { task: 'Chaos run k01.3: 2 iterations.' } },
        ],
      });

      const childTools = ['chaos_step', 'finish'].map((name) => ({ type: 'function', function: { name } }));
      const childTask = [
        { role: 'system', content: 'You are a nested chaos agent.' },
        { role: 'user', content: 'Chaos run k01.3: 2 iterations.' },
      ];
      expect(chaosAgent({ model: CHAOS_MODEL, messages: childTask, tools: childTools })).toMatchObject({
        toolCalls: [{ name: 'chaos_step', arguments: { run: 'k01.3', step: 0, part: 0 } }],
      });
      expect(
        chaosAgent({
          model: CHAOS_MODEL,
          messages: [...childTask, ...turn('0', 'step 0.0 of k01.3 done')],
          tools: childTools,
        }),
      ).toMatchObject({
        toolCalls: [{ name: 'finish', arguments: { note: 'Run k01.3 done after 1 steps.' } }],
      });
    });

    test('without a cached result to read, or without the tools, the step calls chaos_step', () => {
      const uncached = [sixSteps, ...turn('0', 'step 0.0 of k01 done'), ...turn('1', 'a', 'b')];
      expect(chaosAgent(offered(uncached))).toMatchObject({
        toolCalls: [{ name: 'chaos_step', arguments: { step: 2, part: 0 } }],
      });
      expect(chaosAgent(request([...afterStep1, ...turn('2', 'x')]))).toMatchObject({
        toolCalls: [{ name: 'chaos_step', arguments: { step: 3, part: 0 } }, { name: 'chaos_step' }],
      });
    });
  });

  test('a conversation that is not a chaos task is refused with a 400', () => {
    expect(chaosAgent(request([{ role: 'user', content: 'hello' }]))).toEqual({
      error: { status: 400, message: 'Not a chaos task: "hello"' },
    });
  });
});
