import type { AgentResult, AgentState } from './agent-result';
import { pageOfEvents } from './event-page';
import type { EventPage, RunEvent } from './run-events';

/**
 * What a finished run's result carries besides the result (`closedRun`), so its state and events are read from
 * its history without a query (a billed action) or a worker of its build: the `state` query's answer without what
 * the result holds already, and the newest events of the log that fit in `CLOSED_RUN_EVENT_BYTES`. Readers strip it
 * from the result they hand on ({@link withAnswerRestored}). Pure: the workflow and every reader import it.
 */
export interface ClosedRunRecord {
  state: Omit<AgentState, 'messages' | 'transcript' | 'lastEvent'>;
  events: { nextSeq: number; recent: RunEvent[] };
}

/** What the record keeps of the `state` query's answer: all but what the result holds already, and the last event. */
export function closedRunStateOf(state: AgentState): ClosedRunRecord['state'] {
  const kept: Partial<AgentState> = { ...state };
  delete kept.messages;
  delete kept.transcript;
  delete kept.lastEvent;
  return kept as ClosedRunRecord['state'];
}

/**
 * The `state` query's answer for a finished run, from its result: the messages are the ones the result carries
 * (all of them, or the newest with `transcript` saying from where, as the result's own `transcript` does).
 */
export function closedRunState(result: AgentResult, record: ClosedRunRecord): AgentState {
  const lastEvent = record.events.recent.at(-1);
  return {
    ...record.state,
    messages: result.messages,
    ...(result.transcript === undefined ? {} : { transcript: { ...result.transcript, pinned: 0 } }),
    ...(lastEvent === undefined ? {} : { lastEvent }),
  };
}

/** A page of a finished run's events, as the `events` query would answer it (from its carried newest ones). */
export function closedRunEvents(record: ClosedRunRecord, after?: number, limit?: number): EventPage {
  const { recent, nextSeq } = record.events;
  return pageOfEvents(recent, recent[0]?.seq ?? nextSeq, after, limit);
}
