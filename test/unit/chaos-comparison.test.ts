import { CHAOS_MODEL, chaosAgent, chaosTask } from '../../bench/chaos/chaos-agent';
import type { SideEffectRecord } from '../../bench/chaos/chaos-tool';
import { compareOutcomes, firstDifference, type RunOutcome } from '../../bench/chaos/run-comparison';
import { summarizeSideEffects } from '../../bench/chaos/side-effects';
import type { ChatCompletionRequest } from '../../src/scripted-model/script';
import type { AgentResult } from '../../src/shared';

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
      { role: 'assistant', content: 'Starting.', tool_calls: [{ id: 'call_0_0', type: 'function', function: { name: 'chaos_step', arguments: '{"step":0}' } }], meta: { iteration: 1 } },
      { role: 'tool', tool_call_id: 'call_0_0', content: 'step 0.0 of k01 done: 1a2b3c4d', meta: { iteration: 1 } },
    ],
    generatedMessages: [{ sender: 'ai', message: 'Run k01 done after 2 steps.' }],
  };
}

const completed = (value: AgentResult): RunOutcome => ({ status: 'completed', result: value });

describe('compareOutcomes', () => {
  test('equal results are identical, whatever the key order', () => {
    const reordered = Object.fromEntries(Object.entries(result()).reverse()) as AgentResult;
    expect(compareOutcomes(completed(result()), completed(reordered))).toEqual({ identical: true });
  });

  test('a tool result that became an error is a difference, named by its path and both values', () => {
    const crashed = result();
    crashed.messages[2] = { role: 'tool', tool_call_id: 'call_0_0', content: 'Error: tool "chaos_step" timed out (HEARTBEAT)', meta: { iteration: 1 } };

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

    expect(compareOutcomes(completed(result()), completed(otherReason))).toMatchObject({ identical: false, difference: expect.stringMatching(/^result\.terminationReason\.type: /) });
    expect(compareOutcomes(completed(result()), completed(moreInvocations))).toEqual({ identical: false, difference: 'result.invocations: expected 3, found 4' });
    expect(compareOutcomes(completed(result()), completed(moreTokens))).toEqual({ identical: false, difference: 'result.usage.totalTokens: expected 360, found 361' });
  });

  test('an extra or a missing message is a difference', () => {
    const longer = result();
    longer.messages.push({ role: 'assistant', content: 'again' });

    expect(compareOutcomes(completed(result()), completed(longer))).toEqual({ identical: false, difference: 'result.messages: 3 entries expected, 4 found' });
    expect(compareOutcomes(completed(longer), completed(result()))).toEqual({ identical: false, difference: 'result.messages: 4 entries expected, 3 found' });
  });

  test('a stuck or failed run is never identical, and neither is any run against a reference that did not complete', () => {
    expect(compareOutcomes(completed(result()), { status: 'stuck' })).toEqual({
      identical: false,
      difference: 'the run was still running at the deadline (stuck); crash-free it completed',
    });
    expect(compareOutcomes(completed(result()), { status: 'failed', failure: 'MaxInvocationsExceeded: 3 calls' })).toEqual({
      identical: false,
      difference: 'the run failed: MaxInvocationsExceeded: 3 calls; crash-free it completed',
    });
    expect(compareOutcomes({ status: 'failed', failure: 'X: y' }, { status: 'failed', failure: 'X: y' })).toEqual({
      identical: false,
      difference: 'the crash-free reference did not complete (failed: X: y)',
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

describe('chaosAgent', () => {
  const request = (messages: ChatCompletionRequest['messages']): ChatCompletionRequest => ({ model: CHAOS_MODEL, messages });
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
    const afterStep0 = [task, { role: 'assistant', content: 'Starting chaos run k01.' }, { role: 'tool', tool_call_id: 'call_0_0', content: 'r0\npadding' }];
    expect(chaosAgent(request(afterStep0))).toEqual({
      content: 'Step 1; I was told: r0 (10 chars)',
      toolCalls: [0, 1].map((part) => ({ id: `call_1_${part}`, name: 'chaos_step', arguments: { run: 'k01', step: 1, part } })),
    });
    const afterStep1 = [...afterStep0, { role: 'assistant', content: '...' }, { role: 'tool', tool_call_id: 'call_1_0', content: 'r1' }, { role: 'tool', tool_call_id: 'call_1_1', content: 'Error: lost' }];
    expect(chaosAgent(request(afterStep1))).toEqual({
      content: 'Step 2; I was told: r1 (2 chars) | Error: lost (11 chars)',
      toolCalls: [{ id: 'call_2_finish', name: 'finish', arguments: { note: 'Run k01 done after 2 steps.' } }],
    });
  });

  test('a conversation that is not a chaos task is refused with a 400', () => {
    expect(chaosAgent(request([{ role: 'user', content: 'hello' }]))).toEqual({ error: { status: 400, message: 'Not a chaos task: "hello"' } });
  });
});
