import { CARRIED_EVENTS, EVENT_PREVIEW_CHARS, MAX_EVENTS_PER_PAGE, type EventPage, type RunEvent } from '../../shared';

/** What a log hands to the run's next Temporal run when it continues as new: its newest events and the next number. */
export interface CarriedEvents {
  nextSeq: number;
  recent: RunEvent[];
}

/**
 * The run's event log: every entry numbered from 1, so a client can follow
 * the run with a cursor (`after`) without reading everything again. Across
 * continue-as-new the numbers go on; only the newest events come along, so a
 * cursor older than those reads on from the oldest one kept.
 */
export class EventLog {
  private readonly entries: RunEvent[];
  /** The `seq` of `entries[0]`, or of the next event when there is none. */
  private readonly firstSeq: number;

  constructor(carried?: CarriedEvents) {
    this.entries = [...(carried?.recent ?? [])];
    this.firstSeq = this.entries[0]?.seq ?? carried?.nextSeq ?? 1;
  }

  /** Appends an event stamped with workflow time; returns it. */
  append(type: string, details: Record<string, unknown> = {}, at: Date = new Date()): RunEvent {
    const event: RunEvent = { ...details, seq: this.firstSeq + this.entries.length, at: at.toISOString(), type };
    this.entries.push(event);
    return event;
  }

  /** Events with `seq` greater than `after`, at most `limit` of them. */
  page(after: unknown = 0, limit: unknown = MAX_EVENTS_PER_PAGE): EventPage {
    // Query arguments come from any client: what is not a finite number means "from the start" / "a full page".
    const cursor = typeof after === 'number' && Number.isFinite(after) ? Math.max(0, Math.floor(after)) : 0;
    const size = typeof limit === 'number' && !Number.isNaN(limit) ? limit : MAX_EVENTS_PER_PAGE;
    const start = Math.max(0, cursor - (this.firstSeq - 1));
    const events = this.entries.slice(start, start + Math.min(Math.max(1, Math.floor(size)), MAX_EVENTS_PER_PAGE));
    const missed = this.firstSeq - 1 - cursor;
    return { events, nextCursor: events.at(-1)?.seq ?? cursor, ...(missed > 0 ? { missed } : {}) };
  }

  last(): RunEvent | undefined {
    return this.entries.at(-1);
  }

  /** The newest events and the next number, for the run's next Temporal run. */
  carry(count = CARRIED_EVENTS): CarriedEvents {
    return { nextSeq: this.firstSeq + this.entries.length, recent: this.entries.slice(-count) };
  }
}

/** `text` cut to {@link EVENT_PREVIEW_CHARS}, marked when cut, so the event log stays small however large the results. */
export function preview(text: string): string {
  return text.length <= EVENT_PREVIEW_CHARS ? text : `${text.slice(0, EVENT_PREVIEW_CHARS)}… (${text.length} characters)`;
}
