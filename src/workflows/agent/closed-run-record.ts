import { closedRunStateOf, type ClosedRunRecord } from '../../shared/closed-run';
import { CLOSED_RUN_EVENT_BYTES } from '../../shared/defaults/event-log';
import { PAYLOAD_BUDGET_BYTES } from '../../shared/defaults/sizes';
import { jsonBytes } from '../../shared/payload-limits';
import { snapshot, type RunRecord } from './run-record';

/** Room left in a payload for the record's own keys (`closedRun`, `state`, `events`, `nextSeq`, `recent`). */
const CLOSED_RUN_RECORD_MARGIN_BYTES = 256;

/**
 * What a run's ending carries for its readers (its result's `closedRun`, or its failure's last detail): its final
 * state and newest events, in the room `carried` (the rest of the payload) leaves under the payload budget.
 */
export function closedRunRecord(run: RunRecord, carried: unknown): ClosedRunRecord {
  const state = closedRunStateOf(snapshot(run));
  const room = PAYLOAD_BUDGET_BYTES - jsonBytes(carried) - jsonBytes(state) - CLOSED_RUN_RECORD_MARGIN_BYTES;
  return { state, events: run.events.carryWithin(Math.min(CLOSED_RUN_EVENT_BYTES, Math.max(0, room))) };
}
