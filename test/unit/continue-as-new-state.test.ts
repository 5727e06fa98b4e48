import { ZERO_USAGE, type ChatMessage } from '../../src/shared/messages';
import { parseAgentInput } from '../../src/shared/agent-input';
import { partialRun } from '../../src/workflows/agent/failures';
import {
  fitContinueAsNewState,
  inputToValidate,
  inputWithoutConversation,
  shouldContinueAsNew,
  type ContinueAsNewState,
} from '../../src/workflows/agent/continue-as-new-state';
import { continueAsNewStateWith } from '../helpers/continue-as-new-state';

describe('shouldContinueAsNew', () => {
  test.each([
    // iterations this Temporal run, iterationsPerRun, Temporal suggests it, hand over?
    [0, undefined, true, false], // never before the run has done one iteration of its own
    [0, 1, false, false],
    [1, undefined, false, false],
    [1, undefined, true, true],
    [1, 1, false, true],
    [1, 2, false, false],
    [2, 2, false, true],
    [5, 10, true, true],
  ])('%i iterations, every %s, suggested %s: %s', (iterations, perRun, suggested, expected) => {
    expect(shouldContinueAsNew(iterations, perRun, suggested)).toBe(expected);
  });
});

describe('the hand-over input', () => {
  const continuation = (messageChars: number, events: number): ContinueAsNewState =>
    continueAsNewStateWith({
      messages: [{ role: 'user', content: 'm'.repeat(messageChars) }],
      events: {
        nextSeq: events + 1,
        recent: Array.from({ length: events }, (_, index) => ({
          seq: index + 1,
          at: '',
          type: 'user-message' as const,
          content: 'x'.repeat(5_000),
        })),
      },
    });

  test('travels without its conversation, which the continuation carries once; what is checked has a stand-in for it', () => {
    const input = {
      tools: ['calculator'],
      message: 'go',
      messages: [{ role: 'user', content: 'earlier' }],
      maxInvocations: 5,
    };
    expect(inputWithoutConversation(input)).toEqual({ tools: ['calculator'], maxInvocations: 5 });
    const checked = parseAgentInput(inputToValidate(input));
    expect(checked.ok).toBe(true);
  });

  test('a hand-over that fits is left whole', () => {
    const fitted = fitContinueAsNewState({ tools: [] }, continuation(1_000, 200));
    expect(fitted?.continuation.events.recent).toHaveLength(200);
    expect(fitted?.bytes).toBeLessThan(2 * 1024 * 1024);
  });

  test('one that does not fit drops its oldest events until it does', () => {
    const fitted = fitContinueAsNewState({ tools: [] }, continuation(1_500_000, 200));
    expect(fitted).toBeDefined();
    const recent = fitted?.continuation.events.recent ?? [];
    expect(recent.length).toBeLessThan(200);
    expect(recent.at(-1)?.seq).toBe(200);
    expect(fitted?.continuation.events.nextSeq).toBe(201);
    expect(fitted?.bytes).toBeLessThanOrEqual(2 * 1024 * 1024 - 16 * 1024);
  });

  test('one that still does not fit without events gives up result cache entries, oldest first, keeping the numbering', () => {
    const entry = (number: number) => ({
      ref: `cache-${number}`,
      toolName: 'read_file',
      callId: `call-${number}-1`,
      iteration: number,
      content: 'c'.repeat(200_000),
      originalChars: 200_000,
    });
    const handOver = {
      ...continuation(1_300_000, 10),
      resultCache: { entries: [entry(1), entry(2), entry(3), entry(4)], nextNumber: 5 },
    };
    const fitted = fitContinueAsNewState({ tools: [] }, handOver);
    expect(fitted?.continuation.events.recent).toEqual([]);
    // 1.3 MB of conversation leave room for three of the four 200 KB entries.
    expect(fitted?.continuation.resultCache).toEqual({ entries: [entry(2), entry(3), entry(4)], nextNumber: 5 });
    expect(fitted?.bytes).toBeLessThanOrEqual(2 * 1024 * 1024 - 16 * 1024);
  });

  test('one whose conversation alone does not fit cannot hand over', () => {
    expect(fitContinueAsNewState({ tools: [] }, continuation(2_100_000, 10))).toBeUndefined();
  });
});

describe('partialRun', () => {
  test('carries the messages while they fit in a failure, and only their count beyond', () => {
    const small: ChatMessage[] = [{ role: 'user', content: 'hi' }];
    expect(partialRun(small, ZERO_USAGE, 1)).toEqual({
      messages: small,
      messageCount: 1,
      usage: ZERO_USAGE,
      iterations: 1,
    });
    const large: ChatMessage[] = [
      { role: 'user', content: 'x'.repeat(1_100_000) },
      { role: 'assistant', content: 'ok' },
    ];
    expect(partialRun(large, ZERO_USAGE, 4)).toEqual({ messageCount: 2, usage: ZERO_USAGE, iterations: 4 });
  });
});
