import type { EventPage, RunEvent } from '../shared';

/** Most events one `events` query returns. */
export const MAX_EVENTS_PER_PAGE = 500;

/**
 * The run's event log: every entry numbered from 1, so a client can follow
 * the run with a cursor (`after`) without reading everything again.
 */
export class EventLog {
  private readonly entries: RunEvent[] = [];

  /** Appends an event stamped with workflow time; returns it. */
  append(type: string, details: Record<string, unknown> = {}, at: Date = new Date()): RunEvent {
    const event: RunEvent = { ...details, seq: this.entries.length + 1, at: at.toISOString(), type };
    this.entries.push(event);
    return event;
  }

  /** Events with `seq` greater than `after`, at most `limit` of them. */
  page(after = 0, limit = MAX_EVENTS_PER_PAGE): EventPage {
    const start = Math.max(0, Math.floor(after));
    const events = this.entries.slice(start, start + Math.min(Math.max(1, Math.floor(limit)), MAX_EVENTS_PER_PAGE));
    return { events, nextCursor: events.at(-1)?.seq ?? start };
  }

  last(): RunEvent | undefined {
    return this.entries.at(-1);
  }
}
