import { MAX_EVENTS_PER_PAGE } from '../shared/defaults/event-log';
import type { EventPage, RunEvent } from '../shared/run-events';

/** The events a follower read since its last call, and how many events before the log's first were no longer kept. */
export interface FreshEvents {
  fresh: RunEvent[];
  missed: number;
}

/**
 * Reads an event log page by page from where its last call stopped, so each event is read once however often it is
 * asked: a reader that asks after every workflow task reads a long history in linear time, not quadratic.
 */
export class EventFollower {
  private cursor = 0;
  private missed: number | undefined;

  /** `page` answers as the run's `events` query does; undefined before the run registered it. */
  constructor(private readonly page: (after: number, limit: number) => EventPage | undefined) {}

  /** The events appended since the last call (every kept one, on the first). */
  next(): FreshEvents {
    const fresh: RunEvent[] = [];
    for (;;) {
      const page = this.page(this.cursor, MAX_EVENTS_PER_PAGE);
      if (page === undefined) break;
      this.missed ??= page.missed ?? 0;
      for (const event of page.events) fresh.push(event);
      if (page.events.length === 0) break;
      this.cursor = page.nextCursor;
    }
    return { fresh, missed: this.missed ?? 0 };
  }
}
