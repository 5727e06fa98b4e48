import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MAX_EVENTS_PER_PAGE } from '../../src/shared/defaults/event-log';
import { EventLog, readCarriedEvents, toolArgumentsForLog } from '../../src/workflows/agent/event-log';

const START = Date.UTC(2024, 4, 1, 12, 0, 0);

/** The workflow time of the event appended `index` seconds after the start. */
const secondsAfterStart = (index: number): Date => new Date(START + index * 1_000);

/** A log holding `count` events, `iteration-start` of iteration <seq>, one second apart. */
function logWith(count: number): EventLog {
  const log = new EventLog();
  for (let index = 0; index < count; index += 1) {
    log.append('iteration-start', { iteration: index + 1, messages: index }, secondsAfterStart(index));
  }
  return log;
}

const RUN_START = { tools: ['calculator'], model: null };
const RUN_END = { status: 'completed', terminationReason: { type: 'complete' } } as const;
const TAKE_OVER = { iteration: 250, temporalRuns: 2 };

const seqsOf = (log: EventLog, after?: number, limit?: number): number[] =>
  log.page(after, limit).events.map((event) => event.seq);

describe('EventLog.append', () => {
  test('numbers events from 1 upwards', () => {
    const log = new EventLog();

    const first = log.append('run-start', RUN_START, secondsAfterStart(0));
    const second = log.append('iteration-start', { iteration: 1, messages: 1 }, secondsAfterStart(1));
    const third = log.append('run-end', RUN_END, secondsAfterStart(2));

    expect([first.seq, second.seq, third.seq]).toEqual([1, 2, 3]);
  });

  test('stamps the event with the ISO string of the given time', () => {
    const log = new EventLog();

    const event = log.append('run-start', RUN_START, new Date(Date.UTC(2024, 4, 1, 12, 30, 15, 250)));

    expect(event.at).toBe('2024-05-01T12:30:15.250Z');
  });

  test('without a time stamps the current time', () => {
    jest.useFakeTimers({ now: new Date('2024-06-02T08:09:10.011Z') });
    try {
      const event = new EventLog().append('run-start', RUN_START);

      expect(event).toEqual({ seq: 1, at: '2024-06-02T08:09:10.011Z', type: 'run-start', ...RUN_START });
    } finally {
      jest.useRealTimers();
    }
  });

  test('keeps the details next to seq, at and type', () => {
    const log = new EventLog();

    const event = log.append(
      'tool-call-start',
      { iteration: 2, callId: 'call-1', toolName: 'calculator', arguments: {} },
      secondsAfterStart(0),
    );

    expect(event).toEqual({
      seq: 1,
      at: '2024-05-01T12:00:00.000Z',
      type: 'tool-call-start',
      iteration: 2,
      callId: 'call-1',
      toolName: 'calculator',
      arguments: {},
    });
  });

  test('the details are exactly those of the type: no other field, none missing, no other type', () => {
    const log = new EventLog();
    const end = {
      iteration: 1,
      callId: 'call-1-1',
      toolName: 'calculator',
      durationMs: 3,
      isError: false,
      output: '2',
    };

    // @ts-expect-error a field a tool-call-end does not carry
    log.append('tool-call-end', { ...end, wrong: 1 });
    // @ts-expect-error a tool-call-end carries its output
    log.append('tool-call-end', {
      iteration: 1,
      callId: 'call-1-1',
      toolName: 'calculator',
      durationMs: 3,
      isError: false,
    });
    // @ts-expect-error a field of the wrong type
    log.append('tool-call-end', { ...end, durationMs: '3' });
    // @ts-expect-error no such event type
    log.append('tool-call-finished', end);
    // @ts-expect-error an old name is no longer written
    log.append('loop-detected', { iteration: 1, toolName: 'calculator', count: 3, action: 'warn' });
    // @ts-expect-error run-end has a terminationReason when it completed, an error when it failed
    log.append('run-end', { status: 'failed', terminationReason: { type: 'complete' } });

    expect(log.append('tool-call-end', end).type).toBe('tool-call-end');
  });

  test('details cannot override seq, at or type', () => {
    const log = new EventLog();
    log.append('run-start', RUN_START, secondsAfterStart(0));
    const decision = {
      callId: 'call-1',
      toolName: 'write_file',
      decision: 'approve',
      arguments: {},
      decidedAt: '2024-05-01T12:00:01.000Z',
      via: 'update',
    } as const;
    // The compiler refuses them; what comes in at run time cannot override them either.
    const forged = {
      ...decision,
      seq: 99,
      at: '1999-01-01T00:00:00.000Z',
      type: 'forged',
    } as unknown as typeof decision;

    const event = log.append('approval-decision', forged, secondsAfterStart(1));

    expect(event).toEqual({ seq: 2, at: '2024-05-01T12:00:01.000Z', type: 'approval-decision', ...decision });
    expect(log.last()).toEqual(event);
  });

  test('numbering is unaffected by a forged seq in earlier details', () => {
    const log = new EventLog();
    log.append('user-message', { content: 'first', seq: 40 } as unknown as { content: string }, secondsAfterStart(0));

    expect(log.append('user-message', { content: 'second' }, secondsAfterStart(1)).seq).toBe(2);
  });

  test('does not modify the details object', () => {
    const details = {
      iteration: 1,
      callId: 'call-1',
      toolName: 'calculator',
      durationMs: 3,
      isError: false,
      output: '2',
    };

    new EventLog().append('tool-call-end', details, secondsAfterStart(0));

    expect(details).toEqual({
      iteration: 1,
      callId: 'call-1',
      toolName: 'calculator',
      durationMs: 3,
      isError: false,
      output: '2',
    });
  });

  test('returns the event that the log stores', () => {
    const log = new EventLog();

    const event = log.append('run-start', { tools: [], model: 'gpt' }, secondsAfterStart(0));

    expect(log.page().events).toEqual([event]);
    expect(log.last()).toBe(event);
  });
});

describe('tool-call-start arguments', () => {
  test('valid JSON is logged as its value, invalid or long text as argumentsText, cut', () => {
    expect(toolArgumentsForLog('{"expression":"1+1"}')).toEqual({ arguments: { expression: '1+1' } });
    expect(toolArgumentsForLog('{"expression": "1+')).toEqual({ argumentsText: '{"expression": "1+' });
    const long = JSON.stringify({ text: 'x'.repeat(600) });
    expect(toolArgumentsForLog(long)).toEqual({ argumentsText: `${long.slice(0, 500)}… (${long.length} characters)` });
  });
});

describe('EventLog.page', () => {
  test('an empty log gives no events and cursor 0', () => {
    expect(new EventLog().page()).toEqual({ events: [], nextCursor: 0 });
  });

  test('by default returns every event from the start', () => {
    const log = logWith(3);

    expect(log.page()).toEqual({
      events: [
        { seq: 1, at: '2024-05-01T12:00:00.000Z', type: 'iteration-start', iteration: 1, messages: 0 },
        { seq: 2, at: '2024-05-01T12:00:01.000Z', type: 'iteration-start', iteration: 2, messages: 1 },
        { seq: 3, at: '2024-05-01T12:00:02.000Z', type: 'iteration-start', iteration: 3, messages: 2 },
      ],
      nextCursor: 3,
    });
  });

  test('returns the events with seq greater than after', () => {
    expect(seqsOf(logWith(6), 2)).toEqual([3, 4, 5, 6]);
  });

  test('returns at most limit events', () => {
    const page = logWith(6).page(1, 2);

    expect(page.events.map((event) => event.seq)).toEqual([2, 3]);
    expect(page.nextCursor).toBe(3);
  });

  test('the next cursor reads on where the page stopped', () => {
    const log = logWith(5);

    const first = log.page(0, 2);
    const second = log.page(first.nextCursor, 2);
    const third = log.page(second.nextCursor, 2);
    const fourth = log.page(third.nextCursor, 2);

    expect([first, second, third, fourth].map((page) => page.events.map((event) => event.seq))).toEqual([
      [1, 2],
      [3, 4],
      [5],
      [],
    ]);
    expect([first, second, third, fourth].map((page) => page.nextCursor)).toEqual([2, 4, 5, 5]);
  });

  test('the next cursor is the seq of the last event returned', () => {
    expect(logWith(4).page(0, 3).nextCursor).toBe(3);
  });

  test('at the end the page is empty and the cursor stays at after', () => {
    expect(logWith(4).page(4)).toEqual({ events: [], nextCursor: 4 });
  });

  test('a cursor past the end gives an empty page with the cursor unchanged', () => {
    expect(logWith(3).page(10)).toEqual({ events: [], nextCursor: 10 });
  });

  test('new events appear after the cursor a client already holds', () => {
    const log = logWith(2);
    const cursor = log.page().nextCursor;

    log.append('user-message', { content: 'late' }, secondsAfterStart(10));

    expect(log.page(cursor)).toEqual({
      events: [{ seq: 3, at: '2024-05-01T12:00:10.000Z', type: 'user-message', content: 'late' }],
      nextCursor: 3,
    });
  });

  test('MAX_EVENTS_PER_PAGE is 500', () => {
    expect(MAX_EVENTS_PER_PAGE).toBe(500);
  });

  test('by default a page holds at most MAX_EVENTS_PER_PAGE events', () => {
    const log = logWith(MAX_EVENTS_PER_PAGE + 20);

    const page = log.page();

    expect(page.events).toHaveLength(MAX_EVENTS_PER_PAGE);
    expect(page.events[0]?.seq).toBe(1);
    expect(page.nextCursor).toBe(MAX_EVENTS_PER_PAGE);
  });

  test('a limit above MAX_EVENTS_PER_PAGE is capped', () => {
    const log = logWith(MAX_EVENTS_PER_PAGE + 20);

    const page = log.page(10, 10_000);

    expect(page.events).toHaveLength(MAX_EVENTS_PER_PAGE);
    expect(page.events[0]?.seq).toBe(11);
    expect(page.nextCursor).toBe(MAX_EVENTS_PER_PAGE + 10);
  });

  test('an infinite limit is capped', () => {
    expect(logWith(MAX_EVENTS_PER_PAGE + 1).page(0, Number.POSITIVE_INFINITY).events).toHaveLength(MAX_EVENTS_PER_PAGE);
  });

  test('the page after a full one holds the rest', () => {
    const log = logWith(MAX_EVENTS_PER_PAGE + 20);

    const rest = log.page(log.page().nextCursor);

    expect(rest.events.map((event) => event.seq)).toEqual(
      Array.from({ length: 20 }, (_, index) => MAX_EVENTS_PER_PAGE + 1 + index),
    );
    expect(rest.nextCursor).toBe(MAX_EVENTS_PER_PAGE + 20);
  });

  test('a fractional after is rounded down', () => {
    const page = logWith(4).page(1.7);

    expect(page.events.map((event) => event.seq)).toEqual([2, 3, 4]);
    expect(page.nextCursor).toBe(4);
  });

  test('a fractional after past the end gives the rounded-down cursor', () => {
    expect(logWith(3).page(3.9)).toEqual({ events: [], nextCursor: 3 });
  });

  test('a negative after reads from the start', () => {
    expect(seqsOf(logWith(3), -5)).toEqual([1, 2, 3]);
  });

  test('a negative after on an empty log gives cursor 0', () => {
    expect(new EventLog().page(-5)).toEqual({ events: [], nextCursor: 0 });
  });

  test('a fractional limit is rounded down', () => {
    expect(seqsOf(logWith(5), 0, 2.9)).toEqual([1, 2]);
  });

  test('a fractional limit below 1 still returns one event', () => {
    expect(seqsOf(logWith(5), 0, 0.5)).toEqual([1]);
  });

  test('a zero limit returns one event', () => {
    expect(seqsOf(logWith(5), 2, 0)).toEqual([3]);
  });

  test('a negative limit returns one event', () => {
    const page = logWith(5).page(1, -4);

    expect(page.events.map((event) => event.seq)).toEqual([2]);
    expect(page.nextCursor).toBe(2);
  });
});

describe('EventLog.last', () => {
  test('is undefined for an empty log', () => {
    expect(new EventLog().last()).toBeUndefined();
  });

  test('is the most recently appended event', () => {
    const log = logWith(3);

    expect(log.last()).toEqual({
      seq: 3,
      at: '2024-05-01T12:00:02.000Z',
      type: 'iteration-start',
      iteration: 3,
      messages: 2,
    });

    const appended = log.append('run-end', RUN_END, secondsAfterStart(9));

    expect(log.last()).toBe(appended);
  });
});

describe('EventLog.page with arguments that are not numbers', () => {
  test('a non-numeric cursor reads from the start and the cursor stays a number', () => {
    const log = new EventLog();
    log.append('user-message', { content: 'a' });
    log.append('user-message', { content: 'b' });
    expect(log.page('abc' as unknown as number)).toMatchObject({ nextCursor: 2 });
    expect(log.page(Number.NaN).events.map((event) => event.seq)).toEqual([1, 2]);
  });

  test('a null or NaN limit means a full page', () => {
    const log = new EventLog();
    log.append('user-message', { content: 'a' });
    log.append('user-message', { content: 'b' });
    expect(log.page(0, null as unknown as number).events).toHaveLength(2);
    expect(log.page(0, Number.NaN).events).toHaveLength(2);
  });
});

describe('EventLog across continue-as-new', () => {
  test('carries the newest events and the next number; the new log numbers on from there', () => {
    const carried = logWith(250).carry(100);
    expect(carried.nextSeq).toBe(251);
    expect(carried.recent.map((event) => event.seq)).toEqual(Array.from({ length: 100 }, (_, index) => 151 + index));

    const next = new EventLog(carried);
    expect(next.append('run-take-over', TAKE_OVER).seq).toBe(251);
    expect(next.last()?.type).toBe('run-take-over');
  });

  test('a cursor inside the carried events reads on from it; an older one reads from the oldest kept', () => {
    const next = new EventLog(logWith(250).carry(100));
    next.append('run-take-over', TAKE_OVER);
    expect(seqsOf(next, 240)).toEqual([241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251]);
    expect(seqsOf(next, 10, 3)).toEqual([151, 152, 153]);
    expect(seqsOf(next, 0, 1)).toEqual([151]);
    expect(next.page(251)).toEqual({ events: [], nextCursor: 251 });
  });

  test('a page says how many events after its cursor are no longer kept', () => {
    const next = new EventLog(logWith(250).carry(100));
    expect(next.page(10, 1)).toMatchObject({ missed: 140, nextCursor: 151 });
    expect(next.page(0, 1).missed).toBe(150);
    expect(next.page(150, 1)).not.toHaveProperty('missed');
    expect(logWith(5).page(0)).not.toHaveProperty('missed');
  });

  test('a log carried with no events keeps its number', () => {
    const next = new EventLog({ nextSeq: 42, recent: [] });
    expect(next.append('run-take-over', TAKE_OVER).seq).toBe(42);
    expect(seqsOf(next, 0)).toEqual([42]);
  });
});

/** A carried event: `details` under `type`, numbered `seq`. */
const carriedEvent = (seq: number, type: string, details: Record<string, unknown>) => ({
  ...details,
  seq,
  at: secondsAfterStart(seq).toISOString(),
  type,
});

/** A nudge as the current version logs it. */
const NUDGE = { iteration: 1, consecutiveNudges: 1, restrictionInjections: 0 };

describe('readCarriedEvents', () => {
  test('events under their current names come through as they are', () => {
    const log = logWith(3);
    log.append('run-hand-over', { iteration: 3, historyBytes: 2_048 }, secondsAfterStart(3));
    const carried = log.carry();

    expect(readCarriedEvents(carried)).toEqual(carried);
  });

  test("the committed history's hand-over is read whole", () => {
    const history = JSON.parse(
      readFileSync(path.join(__dirname, '..', 'replay', 'histories', 'continue-as-new.json'), 'utf8'),
    );
    const payloads: { data: string }[] = history.events[0].workflowExecutionStartedEventAttributes.input.payloads;
    const handOver = JSON.parse(Buffer.from(payloads[1]?.data ?? '', 'base64').toString('utf8'));

    const read = readCarriedEvents(handOver.events);

    expect(read.nextSeq).toBe(handOver.events.nextSeq);
    expect(read.recent).toHaveLength(handOver.events.recent.length);
    expect(read.recent).toEqual(handOver.events.recent);
    expect(read.recent.at(-1)?.type).toBe('run-hand-over');
  });

  test('an event under a name of before the noun-first renames is not read: those names never left development', () => {
    expect(readCarriedEvents({ nextSeq: 2, recent: [carriedEvent(1, 'nudge', NUDGE)] })).toEqual({
      nextSeq: 2,
      recent: [],
    });
    expect(
      readCarriedEvents({
        nextSeq: 2,
        recent: [carriedEvent(1, 'loop-detected', { iteration: 3, toolName: 'calculator', count: 3, action: 'warn' })],
      }),
    ).toEqual({
      nextSeq: 2,
      recent: [],
    });
  });

  test.each([
    ['not an object', 'surprise'],
    ['null', null],
    ['an unknown type', carriedEvent(3, 'tool-call-finished', { callId: 'call-1-1' })],
    ['a type that is not text', carriedEvent(3, 'x', { type: 7 })],
    ['fields that do not match', carriedEvent(3, 'tool-call-end', { callId: 'call-1-1', durationMs: 'long' })],
    ['no seq', { at: '2024-05-01T12:00:00.000Z', type: 'user-message', content: 'hi' }],
  ])(
    'an event that does not read (%s) is dropped with the older ones; the newer ones and the numbering are kept',
    (_, unreadable) => {
      const newer = [carriedEvent(4, 'user-message', { content: 'four' }), carriedEvent(5, 'nudge-injection', NUDGE)];
      const carried = {
        nextSeq: 6,
        recent: [
          carriedEvent(1, 'user-message', { content: 'one' }),
          carriedEvent(2, 'user-message', { content: 'two' }),
          unreadable,
          ...newer,
        ],
      };

      const read = readCarriedEvents(carried);

      expect(read).toEqual({ nextSeq: 6, recent: newer });
      // As for events that did not fit in the hand-over: a follower behind them is told how many it missed.
      const log = new EventLog(carried);
      expect(log.page(0)).toMatchObject({ missed: 3, nextCursor: 5 });
      expect(log.append('user-message', { content: 'six' }).seq).toBe(6);
    },
  );

  test('an event numbered out of line is dropped with the older ones', () => {
    const read = readCarriedEvents({
      nextSeq: 4,
      recent: [
        carriedEvent(1, 'user-message', { content: 'one' }),
        carriedEvent(7, 'user-message', { content: '?' }),
        carriedEvent(3, 'user-message', { content: 'three' }),
      ],
    });

    expect(read).toEqual({ nextSeq: 4, recent: [carriedEvent(3, 'user-message', { content: 'three' })] });
  });

  test('a carried event under a name of Object.prototype is unknown', () => {
    expect(readCarriedEvents({ nextSeq: 2, recent: [carriedEvent(1, 'constructor', {})] })).toEqual({
      nextSeq: 2,
      recent: [],
    });
  });

  test.each([
    ['nothing', undefined, { nextSeq: 1, recent: [] }],
    ['not an object', 'events', { nextSeq: 1, recent: [] }],
    ['an array', [carriedEvent(1, 'user-message', { content: 'hi' })], { nextSeq: 1, recent: [] }],
    ['recent that is not a list', { nextSeq: 9, recent: 'none' }, { nextSeq: 9, recent: [] }],
    [
      'no nextSeq: numbered on from the newest event',
      { recent: [carriedEvent(1, 'user-message', { content: 'hi' })] },
      { nextSeq: 2, recent: [carriedEvent(1, 'user-message', { content: 'hi' })] },
    ],
    ['a nextSeq that is no number', { nextSeq: 'ten', recent: [] }, { nextSeq: 1, recent: [] }],
    ['a nextSeq of 0', { nextSeq: 0, recent: [] }, { nextSeq: 1, recent: [] }],
  ])(
    'a hand-over whose events are malformed (%s) gives a log that numbers on, and never throws',
    (_, raw, expected) => {
      expect(readCarriedEvents(raw)).toEqual(expected);
      expect(() => new EventLog(raw ?? null)).not.toThrow();
    },
  );
});
