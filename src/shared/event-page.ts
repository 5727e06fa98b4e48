import { MAX_EVENTS_PER_PAGE } from './defaults/event-log';
import type { EventPage, RunEvent } from './run-events';

/**
 * A page of an event log kept from `firstSeq` on: the events after `after`, at most `limit`, and how many are no
 * longer kept. Shared by the `events` query and readers of a result; a non-finite argument means start or full page.
 */
export function pageOfEvents(
  entries: readonly RunEvent[],
  firstSeq: number,
  after: unknown = 0,
  limit: unknown = MAX_EVENTS_PER_PAGE,
): EventPage {
  const cursor = typeof after === 'number' && Number.isFinite(after) ? Math.max(0, Math.floor(after)) : 0;
  const size = typeof limit === 'number' && !Number.isNaN(limit) ? limit : MAX_EVENTS_PER_PAGE;
  const start = Math.max(0, cursor - (firstSeq - 1));
  const events = entries.slice(start, start + Math.min(Math.max(1, Math.floor(size)), MAX_EVENTS_PER_PAGE));
  const missed = firstSeq - 1 - cursor;
  return { events, nextCursor: events.at(-1)?.seq ?? cursor, ...(missed > 0 ? { missed } : {}) };
}
