import { MAX_EVENTS_PER_PAGE } from '../../src/shared/defaults/event-log';
import type { EventPage } from '../../src/shared/run-events';
import { EventLog } from '../../src/workflows/agent/event-log';
import { EventFollower } from '../../src/workflows/event-follower';

/** A follower of `log` that counts the events its pages copied out of the log. */
function countingFollower(log: EventLog): { follower: EventFollower; copied: () => number } {
  let copied = 0;
  const page = (after: number, limit: number): EventPage => {
    const answer = log.page(after, limit);
    copied += answer.events.length;
    return answer;
  };
  return { follower: new EventFollower(page), copied: () => copied };
}

describe('EventFollower', () => {
  test('reads a long history one workflow task at a time, copying each event once', () => {
    const log = new EventLog();
    const { follower, copied } = countingFollower(log);
    const read: number[] = [];
    const tasks = 3_000;
    for (let task = 1; task <= tasks; task += 1) {
      // A task appends one to three events, as model turns and tool calls do.
      for (let appended = 0; appended < 1 + (task % 3); appended += 1)
        log.append('iteration-start', { iteration: task, messages: task });
      const { fresh, missed } = follower.next();
      expect(missed).toBe(0);
      read.push(...fresh.map((event) => event.seq));
    }
    const total = log.last()?.seq ?? 0;
    expect(total).toBeGreaterThan(2 * MAX_EVENTS_PER_PAGE);
    expect(read).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    // Reading the whole log after each task would copy about tasks * total / 2 events: millions here.
    expect(copied()).toBe(total);
  });

  test('reads a log of more than one page in one call, in order', () => {
    const log = new EventLog();
    for (let index = 1; index <= 2 * MAX_EVENTS_PER_PAGE + 7; index += 1)
      log.append('iteration-start', { iteration: index, messages: index });
    const { follower, copied } = countingFollower(log);
    expect(follower.next().fresh.map((event) => event.seq)).toEqual(
      Array.from({ length: 2 * MAX_EVENTS_PER_PAGE + 7 }, (_, index) => index + 1),
    );
    expect(follower.next().fresh).toEqual([]);
    expect(copied()).toBe(2 * MAX_EVENTS_PER_PAGE + 7);
  });

  test('says how many events a carried log no longer keeps, on every call', () => {
    const log = new EventLog({ nextSeq: 41, recent: [] });
    log.append('iteration-start', { iteration: 5, messages: 3 });
    const { follower } = countingFollower(log);
    expect(follower.next()).toEqual({ fresh: [expect.objectContaining({ seq: 41 })], missed: 40 });
    log.append('iteration-start', { iteration: 6, messages: 4 });
    expect(follower.next()).toEqual({ fresh: [expect.objectContaining({ seq: 42 })], missed: 40 });
  });

  test('reads nothing before the run answers its events query, then everything it kept', () => {
    const log = new EventLog();
    log.append('iteration-start', { iteration: 1, messages: 1 });
    let registered = false;
    const follower = new EventFollower((after, limit) => (registered ? log.page(after, limit) : undefined));
    expect(follower.next()).toEqual({ fresh: [], missed: 0 });
    registered = true;
    expect(follower.next().fresh.map((event) => event.seq)).toEqual([1]);
  });
});
