import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { ZERO_USAGE } from '../../src/shared/messages';
import { readCarriedEvents } from '../../src/workflows/agent/event-log';
import { continueAsNewStateOf } from '../../src/workflows/agent/continue-as-new-state';
import {
  CONTINUE_AS_NEW_STATE_VERSION,
  continueAsNewV4Schema,
  parseContinueAsNewState,
} from '../../src/workflows/agent/continue-as-new-schema';
import { createRunRecord } from '../../src/workflows/agent/run-record';

/** A hand-over of the current version after one iteration, without the fields that are optional. */
const handOver = {
  schemaVersion: 4,
  continuations: 1,
  inputMessageCount: 0,
  messages: [
    { role: 'user', content: 'Add each number to itself, one call at a time.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call-1-1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1 + 1"}' } },
      ],
      meta: { iteration: 1, modelCallIds: { 'call-1-1': 'call_0' } },
    },
    { role: 'tool', tool_call_id: 'call-1-1', content: '2', meta: { iteration: 1 } },
  ],
  inbox: ['sent meanwhile'],
  iteration: 1,
  invocations: 1,
  consecutiveNudges: 0,
  restrictionInjections: 0,
  usage: { promptTokens: 187, completionTokens: 28, totalTokens: 215 },
  limits: { maxInvocations: 64, tokenBudget: { maxTotal: 10_000 } },
  loopTracker: { toolName: 'calculator', argumentsKey: '{"expression":"1 + 1"}', count: 1 },
  breaker: { toolName: null, errorText: null, count: 0 },
  turn: { startedAtMs: 1795273870750, messageIndex: 0, iteration: 0, usage: ZERO_USAGE, executedTools: ['calculator'] },
  externalStopRequested: false,
  events: {
    nextSeq: 3,
    recent: [
      { tools: ['calculator'], model: null, seq: 1, at: '2026-11-21T15:11:10.750Z', type: 'run-start' },
      { iteration: 1, messages: 1, seq: 2, at: '2026-11-21T15:11:10.850Z', type: 'iteration-start' },
    ],
  },
  deadline: '2026-11-21T16:11:10.750Z',
};

/** The hand-over arguments recorded in a committed history: the continue-as-new command's, or the continued run's start. */
function recordedHandOvers(file: string): unknown[] {
  const json: unknown = JSON.parse(readFileSync(path.join(__dirname, '..', 'replay', 'histories', file), 'utf8'));
  return (historyFromJSON(json).events ?? []).flatMap((event) => {
    const payloads =
      (event.workflowExecutionContinuedAsNewEventAttributes ?? event.workflowExecutionStartedEventAttributes)?.input
        ?.payloads ?? [];
    const second = payloads[1];
    return second === undefined ? [] : [defaultPayloadConverter.fromPayload(second)];
  });
}

/** What a hand-over without `toolCallsExecuted`, `lastToolResults` and `releasedIterations` is read with. */
const NONE_YET = { toolCallsExecuted: 0, lastToolResults: [], releasedIterations: [] };

describe('the current version', () => {
  test('is what continueAsNewStateOf writes, and reads back as itself', () => {
    const run = createRunRecord();
    run.iteration = 2;
    run.events.append('run-start', { tools: ['calculator'], model: null });
    const written = continueAsNewStateOf(run, 0, undefined);
    expect(written.schemaVersion).toBe(CONTINUE_AS_NEW_STATE_VERSION);
    expect(CONTINUE_AS_NEW_STATE_VERSION).toBe(4);
    const wire: unknown = JSON.parse(JSON.stringify(written));
    expect(parseContinueAsNewState(wire)).toEqual({ ok: true, continuation: wire });
    expect(continueAsNewV4Schema.safeParse(wire).success).toBe(true);
  });

  test("carries the run's result cache, which reads back as it was written", () => {
    const run = createRunRecord();
    run.messages = [{ role: 'user', content: 'go' }];
    run.resultCache = {
      entries: [
        {
          ref: 'cache-2',
          toolName: 'read_file',
          callId: 'call-1-1',
          iteration: 1,
          content: 'x'.repeat(50),
          originalChars: 50,
        },
      ],
      nextNumber: 3,
    };
    const wire: unknown = JSON.parse(JSON.stringify(continueAsNewStateOf(run, 0, undefined)));
    expect(wire).toMatchObject({ schemaVersion: 4, resultCache: run.resultCache });
    expect(parseContinueAsNewState(wire)).toEqual({ ok: true, continuation: wire });
  });

  test('a malformed result cache is named', () => {
    const read = parseContinueAsNewState({
      ...handOver,
      resultCache: { entries: [{ ref: 'cache-1' }], nextNumber: 0 },
    });
    expect(read.ok ? [] : read.problems).toContain(
      'continuation.resultCache.nextNumber: Too small: expected number to be >=1',
    );
    expect(read.ok ? [] : read.problems).toContain(
      'continuation.resultCache.entries.0.content: Invalid input: expected string, received undefined',
    );
  });

  test("carries the run's compaction, which reads back as it was written", () => {
    const run = createRunRecord();
    run.messages = [{ role: 'user', content: 'go' }];
    run.compaction = { throughIndex: 0, summary: 'the user said go', iteration: 4, count: 1 };
    const wire: unknown = JSON.parse(JSON.stringify(continueAsNewStateOf(run, 0, undefined)));
    expect(wire).toMatchObject({ schemaVersion: 4, compaction: run.compaction });
    expect(parseContinueAsNewState(wire)).toEqual({ ok: true, continuation: wire });
  });

  test("carries the nested agents' usage and the turn's agent answers; a hand-over without them reads without", () => {
    const run = createRunRecord();
    run.nested = {
      children: [
        { runId: 'r1', toolName: 'researcher', usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 } },
      ],
      omitted: 2,
      total: { promptTokens: 30, completionTokens: 40, totalTokens: 70 },
    };
    run.turn = { ...run.turn, agentAnswers: [{ toolName: 'researcher', stopMessage: false }] };
    const wire: unknown = JSON.parse(JSON.stringify(continueAsNewStateOf(run, 0, undefined)));
    expect(wire).toMatchObject({ nested: run.nested, turn: { agentAnswers: run.turn.agentAnswers } });
    expect(parseContinueAsNewState(wire)).toEqual({ ok: true, continuation: wire });
    const without = parseContinueAsNewState(handOver);
    expect(without.ok && without.continuation.nested).toBeUndefined();
    const malformed = parseContinueAsNewState({ ...handOver, nested: { children: 'many' } });
    expect(malformed.ok ? [] : malformed.problems[0]).toMatch(/^continuation\.nested/);
  });

  test('a malformed compaction is named', () => {
    const read = parseContinueAsNewState({ ...handOver, compaction: { throughIndex: 'all', summary: 5 } });
    expect(read.ok ? [] : read.problems).toContain(
      'continuation.compaction.throughIndex: Invalid input: expected number, received string',
    );
  });
});

describe('the stop context and released iterations', () => {
  test('a hand-over without them reads as a run that had none; with them, they travel', () => {
    expect(parseContinueAsNewState(handOver)).toEqual({ ok: true, continuation: { ...handOver, ...NONE_YET } });
    const carried = {
      toolCallsExecuted: 4,
      lastToolResults: [{ toolName: 'big', callId: 'call-2-1', contentPreview: 'y', isError: false }],
      releasedIterations: [1, 2],
    };
    expect(parseContinueAsNewState({ ...handOver, ...carried })).toEqual({
      ok: true,
      continuation: { ...handOver, ...carried },
    });
    const wrong = parseContinueAsNewState({ ...handOver, releasedIterations: [1.5] });
    expect(wrong.ok).toBe(false);
  });
});

describe('the recorded histories', () => {
  test.each(['continue-as-new-start.json', 'continue-as-new.json'])(
    'the hand-overs recorded in %s are of the current version, and read',
    (file) => {
      const recorded = recordedHandOvers(file);
      expect(recorded.length).toBeGreaterThan(0);
      for (const carried of recorded) {
        expect(carried).toHaveProperty('schemaVersion', CONTINUE_AS_NEW_STATE_VERSION);
        // The same fields; the events are read as this version writes them, every one of them kept.
        const { events } = carried as { events: unknown };
        expect(parseContinueAsNewState(carried)).toEqual({
          ok: true,
          continuation: { ...(carried as object), events: readCarriedEvents(events) },
        });
        expect(readCarriedEvents(events).recent.length).toBe((events as { recent: unknown[] }).recent.length);
      }
    },
  );
});

describe('a malformed hand-over is a list of problems naming the field, never a throw', () => {
  test.each([
    [
      'a version this worker does not know',
      { ...handOver, schemaVersion: 5 },
      'continuation.schemaVersion: expected one of 4 (the hand-over versions this worker reads), got 5',
    ],
    [
      'an earlier version, never released',
      { ...handOver, schemaVersion: 3 },
      'continuation.schemaVersion: expected one of 4 (the hand-over versions this worker reads), got 3',
    ],
    [
      'no version',
      { ...handOver, schemaVersion: undefined },
      'continuation.schemaVersion: expected one of 4 (the hand-over versions this worker reads), got none',
    ],
    [
      'a version that is not a number',
      { ...handOver, schemaVersion: 'two' },
      'continuation.schemaVersion: expected one of 4 (the hand-over versions this worker reads), got "two"',
    ],
    ['a missing field', { ...handOver, usage: undefined }, 'continuation.usage: expected an object'],
    [
      'a usage that does not count tokens',
      { ...handOver, usage: { ...handOver.usage, totalTokens: 'many' } },
      'continuation.usage.totalTokens: Invalid input: expected number, received string',
    ],
    [
      'a loop tracker without its count',
      { ...handOver, loopTracker: { toolName: null, argumentsKey: null } },
      'continuation.loopTracker.count: Invalid input: expected number, received undefined',
    ],
    [
      'a negative counter',
      { ...handOver, invocations: -1 },
      'continuation.invocations: expected a whole number, 0 or more',
    ],
    ['an array', [handOver], 'continuation: expected the object a run hands over when it continues as new'],
  ])('%s', (_name, handOver, expected) => {
    const read = parseContinueAsNewState(handOver);
    expect(read.ok).toBe(false);
    expect(read.ok ? [] : read.problems).toContain(expected);
  });

  test('a thousand malformed messages are one problem; every missing field is named', () => {
    const read = parseContinueAsNewState({
      ...handOver,
      messages: Array.from({ length: 1000 }, () => ({ role: 'nobody' })),
    });
    expect(read).toEqual({ ok: false, problems: ['continuation.messages: expected chat messages'] });
    const everything = parseContinueAsNewState({ schemaVersion: 4 });
    expect(everything.ok ? [] : everything.problems).toHaveLength(15);
  });
});
