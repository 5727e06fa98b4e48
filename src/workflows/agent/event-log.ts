import { CARRIED_EVENTS, EVENT_PREVIEW_CHARS, MAX_EVENTS_PER_PAGE } from '../../shared/defaults/event-log';
import { jsonBytes } from '../../shared/payload-limits';
import { pageOfEvents } from '../../shared/event-page';
import {
  isRunEvent,
  loggedToolArguments,
  type EventPage,
  type RunEvent,
  type RunEventDetails,
  type RunEventOf,
  type RunEventType,
} from '../../shared/run-events';

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

  /** A log that goes on from `carried`, as it came in a continue-as-new: read with {@link readCarriedEvents}, so it cannot throw. */
  constructor(carried?: unknown) {
    const read = carried === undefined ? undefined : readCarriedEvents(carried);
    this.entries = [...(read?.recent ?? [])];
    this.firstSeq = this.entries[0]?.seq ?? read?.nextSeq ?? 1;
  }

  /**
   * Appends an event stamped with workflow time; returns it. `details` are
   * checked against the event's type: `append('tool-call-end', { ... })`
   * takes exactly the fields a `tool-call-end` carries.
   */
  append<Type extends RunEventType>(
    type: Type,
    details: RunEventDetails<Type>,
    at: Date = new Date(),
  ): RunEventOf<Type> {
    // Details first: they cannot override the number, the time or the type.
    const event = {
      ...(details as object),
      seq: this.firstSeq + this.entries.length,
      at: at.toISOString(),
      type,
    } as RunEventOf<Type>;
    this.entries.push(event);
    return event;
  }

  /** Events with `seq` greater than `after`, at most `limit` of them. */
  page(after: unknown = 0, limit: unknown = MAX_EVENTS_PER_PAGE): EventPage {
    return pageOfEvents(this.entries, this.firstSeq, after, limit);
  }

  /** The newest event, if any. */
  last(): RunEvent | undefined {
    return this.entries.at(-1);
  }

  /** The newest events and the next number, for the run's next Temporal run. */
  carry(count = CARRIED_EVENTS): CarriedEvents {
    return { nextSeq: this.firstSeq + this.entries.length, recent: count > 0 ? this.entries.slice(-count) : [] };
  }

  /** The newest events whose JSON fits in `budgetBytes`, and the next number: what a finished run's result carries. */
  carryWithin(budgetBytes: number): CarriedEvents {
    let count = 0;
    let bytes = 2;
    while (count < this.entries.length) {
      const size = jsonBytes(this.entries[this.entries.length - 1 - count]) + 1;
      if (bytes + size > budgetBytes) break;
      bytes += size;
      count += 1;
    }
    return this.carry(count);
  }
}

/**
 * The events a continue-as-new carries, read as untrusted: the newest run of events that parse, numbered without a
 * gap up to `nextSeq`, is kept and older ones are dropped as if they had not fitted (a follower is told how many).
 * Never throws, since a throw would fail the workflow task forever.
 */
export function readCarriedEvents(raw: unknown): CarriedEvents {
  const carried: Record<string, unknown> = isObject(raw) ? raw : {};
  const recent: unknown[] = Array.isArray(carried.recent) ? carried.recent : [];
  const newest = recent.at(-1);
  const nextSeq = isSeq(carried.nextSeq) ? carried.nextSeq : isObject(newest) && isSeq(newest.seq) ? newest.seq + 1 : 1;
  const kept: RunEvent[] = [];
  for (let index = recent.length - 1; index >= 0; index -= 1) {
    const event = readCarriedEvent(recent[index]);
    if (event === undefined || event.seq !== nextSeq - 1 - kept.length) break;
    kept.push(event);
  }
  return { nextSeq, recent: kept.reverse() };
}

/** One carried event, or undefined when it does not read as one this version writes. */
function readCarriedEvent(raw: unknown): RunEvent | undefined {
  return isRunEvent(raw) ? raw : undefined;
}

/** A tool call's arguments as `tool-call-start` logs them: the value when the JSON text is valid and short, else the text cut. */
export function toolArgumentsForLog(text: string): { arguments: unknown } | { argumentsText: string } {
  return loggedToolArguments(text, EVENT_PREVIEW_CHARS, preview);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '(not JSON)';
  }
}

/** A preview of any value's JSON (`(not JSON)` when it has none): what a rejected message showed. */
export function previewJson(value: unknown): string {
  return preview(jsonText(value));
}

/** `text` cut to {@link EVENT_PREVIEW_CHARS}, marked when cut, so the event log stays small however large the results. */
export function preview(text: string): string {
  return text.length <= EVENT_PREVIEW_CHARS
    ? text
    : `${text.slice(0, EVENT_PREVIEW_CHARS)}… (${text.length} characters)`;
}
