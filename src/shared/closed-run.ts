import type { AgentResult, AgentState } from './agent-result';
import { pageOfEvents } from './event-page';
import type { EventPage, RunEvent } from './run-events';

/**
 * What a finished run's result (or failure's last detail) carries so its state and newest events
 * (`CLOSED_RUN_EVENT_BYTES`) are read from history without a query or a worker; readers strip it
 * ({@link withAnswerRestored}).
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

/**
 * The state of a run Temporal closed without asking it (terminated, timed out), from its replayed state: the run
 * never wrote its end, so it is `terminated` from outside, and nothing it waited for is pending any more.
 */
export function closedByTemporalState(state: AgentState, reason: string): AgentState {
  const rest: AgentState = { ...state };
  delete rest.waitingFor;
  delete rest.question;
  return {
    ...rest,
    status: 'terminated',
    pendingApprovals: [],
    activity: `closed by Temporal: ${reason}`,
    terminationReason: { type: 'external', via: 'temporal', reason },
  };
}

/** The key of the detail a failed run's failure carries its record under (its last detail). */
export const CLOSED_RUN_DETAIL_KEY = 'closedRun';

/** The record among a failure's details, if one is there. */
export function closedRunInDetails(details: readonly unknown[]): ClosedRunRecord | undefined {
  const detail = details.find(isRecordDetail);
  return detail === undefined ? undefined : (detail[CLOSED_RUN_DETAIL_KEY] as ClosedRunRecord);
}

/** A failure's details without the record: what callers are shown. */
export function withoutClosedRun(details: readonly unknown[]): unknown[] {
  return details.filter((detail) => !isRecordDetail(detail));
}

/**
 * The `state` query's answer for a failed run, from its failure: the messages are the ones its first detail carries
 * (`messages`, when they fit in a failure), else none.
 */
export function failedRunState(details: readonly unknown[], record: ClosedRunRecord): AgentState {
  const partial = details[0] as { messages?: unknown } | undefined;
  const messages = Array.isArray(partial?.messages) ? (partial.messages as AgentState['messages']) : [];
  const lastEvent = record.events.recent.at(-1);
  return { ...record.state, messages, ...(lastEvent === undefined ? {} : { lastEvent }) };
}

function isRecordDetail(detail: unknown): detail is Record<string, unknown> {
  return typeof detail === 'object' && detail !== null && CLOSED_RUN_DETAIL_KEY in detail;
}

/** A page of a finished run's events, as the `events` query would answer it (from its carried newest ones). */
export function closedRunEvents(record: ClosedRunRecord, after?: number, limit?: number): EventPage {
  const { recent, nextSeq } = record.events;
  return pageOfEvents(recent, recent[0]?.seq ?? nextSeq, after, limit);
}
