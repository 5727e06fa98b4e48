import { MAX_EVENTS_PER_PAGE } from '../../src/shared';
import { EventLog } from '../../src/workflows/agent/event-log';

const START = Date.UTC(2024, 4, 1, 12, 0, 0);

/** The workflow time of the event appended `index` seconds after the start. */
const secondsAfterStart = (index: number): Date => new Date(START + index * 1_000);

/** A log holding `count` events of type `event-<seq>`, one second apart. */
function logWith(count: number): EventLog {
  const log = new EventLog();
  for (let index = 0; index < count; index += 1) {
    log.append(`event-${index + 1}`, { index }, secondsAfterStart(index));
  }
  return log;
}

const seqsOf = (log: EventLog, after?: number, limit?: number): number[] => log.page(after, limit).events.map((event) => event.seq);

describe('EventLog.append', () => {
  test('numbers events from 1 upwards', () => {
    const log = new EventLog();

    const first = log.append('run-start', {}, secondsAfterStart(0));
    const second = log.append('iteration-start', {}, secondsAfterStart(1));
    const third = log.append('run-end', {}, secondsAfterStart(2));

    expect([first.seq, second.seq, third.seq]).toEqual([1, 2, 3]);
  });

  test('stamps the event with the ISO string of the given time', () => {
    const log = new EventLog();

    const event = log.append('run-start', {}, new Date(Date.UTC(2024, 4, 1, 12, 30, 15, 250)));

    expect(event.at).toBe('2024-05-01T12:30:15.250Z');
  });

  test('without a time stamps the current time', () => {
    jest.useFakeTimers({ now: new Date('2024-06-02T08:09:10.011Z') });
    try {
      const event = new EventLog().append('run-start');

      expect(event).toEqual({ seq: 1, at: '2024-06-02T08:09:10.011Z', type: 'run-start' });
    } finally {
      jest.useRealTimers();
    }
  });

  test('keeps the details next to seq, at and type', () => {
    const log = new EventLog();

    const event = log.append('tool-call-start', { iteration: 2, callId: 'call-1', toolName: 'calculator' }, secondsAfterStart(0));

    expect(event).toEqual({
      seq: 1,
      at: '2024-05-01T12:00:00.000Z',
      type: 'tool-call-start',
      iteration: 2,
      callId: 'call-1',
      toolName: 'calculator',
    });
  });

  test('without details the event has only seq, at and type', () => {
    const event = new EventLog().append('run-start', undefined, secondsAfterStart(0));

    expect(event).toEqual({ seq: 1, at: '2024-05-01T12:00:00.000Z', type: 'run-start' });
  });

  test('details cannot override seq, at or type', () => {
    const log = new EventLog();
    log.append('run-start', {}, secondsAfterStart(0));

    const event = log.append(
      'approval-decision',
      { seq: 99, at: '1999-01-01T00:00:00.000Z', type: 'forged', callId: 'call-1' },
      secondsAfterStart(1),
    );

    expect(event).toEqual({ seq: 2, at: '2024-05-01T12:00:01.000Z', type: 'approval-decision', callId: 'call-1' });
    expect(log.last()).toEqual(event);
  });

  test('numbering is unaffected by a forged seq in earlier details', () => {
    const log = new EventLog();
    log.append('first', { seq: 40 }, secondsAfterStart(0));

    expect(log.append('second', {}, secondsAfterStart(1)).seq).toBe(2);
  });

  test('does not modify the details object', () => {
    const details = { seq: 7, callId: 'call-1' };

    new EventLog().append('tool-call-end', details, secondsAfterStart(0));

    expect(details).toEqual({ seq: 7, callId: 'call-1' });
  });

  test('returns the event that the log stores', () => {
    const log = new EventLog();

    const event = log.append('run-start', { model: 'gpt' }, secondsAfterStart(0));

    expect(log.page().events).toEqual([event]);
    expect(log.last()).toBe(event);
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
        { seq: 1, at: '2024-05-01T12:00:00.000Z', type: 'event-1', index: 0 },
        { seq: 2, at: '2024-05-01T12:00:01.000Z', type: 'event-2', index: 1 },
        { seq: 3, at: '2024-05-01T12:00:02.000Z', type: 'event-3', index: 2 },
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

    expect([first, second, third, fourth].map((page) => page.events.map((event) => event.seq))).toEqual([[1, 2], [3, 4], [5], []]);
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

    log.append('late', {}, secondsAfterStart(10));

    expect(log.page(cursor)).toEqual({
      events: [{ seq: 3, at: '2024-05-01T12:00:10.000Z', type: 'late' }],
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

    expect(rest.events.map((event) => event.seq)).toEqual(Array.from({ length: 20 }, (_, index) => MAX_EVENTS_PER_PAGE + 1 + index));
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

    expect(log.last()).toEqual({ seq: 3, at: '2024-05-01T12:00:02.000Z', type: 'event-3', index: 2 });

    const appended = log.append('run-end', { status: 'completed' }, secondsAfterStart(9));

    expect(log.last()).toBe(appended);
  });
});

describe('EventLog.page with arguments that are not numbers', () => {
  test('a non-numeric cursor reads from the start and the cursor stays a number', () => {
    const log = new EventLog();
    log.append('a');
    log.append('b');
    expect(log.page('abc' as unknown as number)).toMatchObject({ nextCursor: 2 });
    expect(log.page(Number.NaN).events.map((event) => event.seq)).toEqual([1, 2]);
  });

  test('a null or NaN limit means a full page', () => {
    const log = new EventLog();
    log.append('a');
    log.append('b');
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
    expect(next.append('run-continued').seq).toBe(251);
    expect(next.last()?.type).toBe('run-continued');
  });

  test('a cursor inside the carried events reads on from it; an older one reads from the oldest kept', () => {
    const next = new EventLog(logWith(250).carry(100));
    next.append('run-continued');
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
    expect(next.append('run-continued').seq).toBe(42);
    expect(seqsOf(next, 0)).toEqual([42]);
  });
});
