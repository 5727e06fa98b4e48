import { readContinueAsNewState } from '../../src/workflows/agent/run-arguments';
import type { ContinueAsNewState } from '../../src/workflows/agent/continue-as-new-state';
import { continueAsNewStateWith } from '../helpers/continue-as-new-state';

describe('readContinueAsNewState', () => {
  const handOver: ContinueAsNewState = continueAsNewStateWith();

  test('a run started with its input alone has no hand-over; trailing undefined arguments are none', () => {
    expect(readContinueAsNewState([], false)).toEqual({ ok: true });
    expect(readContinueAsNewState([undefined], false)).toEqual({ ok: true });
  });

  test("a caller's second argument is refused when the run was not continued, even a well-formed hand-over", () => {
    for (const second of [{ garbage: true }, handOver, null, 'x']) {
      expect(readContinueAsNewState([second], false)).toEqual({
        ok: false,
        problems: [
          expect.stringMatching(
            /^arguments: agentWorkflow takes one argument, the run's input, and was started with 2;/,
          ),
        ],
      });
    }
    expect(readContinueAsNewState([undefined, 'third'], false)).toMatchObject({
      ok: false,
      problems: [expect.stringContaining('was started with 3')],
    });
  });

  test('a continued run takes its hand-over', () => {
    expect(readContinueAsNewState([handOver], true)).toEqual({ ok: true, continuation: handOver });
    expect(readContinueAsNewState([{ ...handOver, deadline: '2026-01-01T00:00:00.000Z' }], true).ok).toBe(true);
  });

  test.each([
    ['not an object', 'garbage', 'continuation: expected the object a run hands over when it continues as new'],
    ['null', null, 'continuation: expected the object a run hands over when it continues as new'],
    [
      'a missing counter',
      { ...handOver, iteration: undefined },
      'continuation.iteration: expected a whole number, 0 or more',
    ],
    ['messages that are not an array', { ...handOver, messages: 'm' }, 'continuation.messages: expected an array'],
    [
      'messages that are not chat messages',
      { ...handOver, messages: [null] },
      'continuation.messages: expected chat messages',
    ],
    [
      'events without recent',
      { ...handOver, events: { nextSeq: 1 } },
      'continuation.events: expected { nextSeq, recent }',
    ],
    ['a deadline that is not text', { ...handOver, deadline: 5 }, 'continuation.deadline: expected a text, if given'],
  ])('a malformed hand-over (%s) is a problem, not a throw', (_name, value, expected) => {
    const read = readContinueAsNewState([value], true);
    expect(read.ok).toBe(false);
    expect(read.ok ? [] : read.problems).toContain(expected);
  });
});
