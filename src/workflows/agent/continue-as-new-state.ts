import { PAYLOAD_BUDGET_BYTES } from '../../shared/defaults/sizes';
import { jsonBytes } from '../../shared/payload-limits';
import { EventLog, type CarriedEvents } from './event-log';
import { createRunRecord, type RunRecord } from './run-record';
import { CONTINUE_AS_NEW_STATE_VERSION } from './continue-as-new-schema';
import { hasSummarisedToLeave, leaveSummarisedBehind } from '../rules/transcript-segment';
import type { RunContext } from './run-context';
import { withoutOldestEntry } from '../rules/result-cache';

/** The fields of the run record continue-as-new carries as they are: everything the loop counts, and the conversation. */
const CARRIED = [
  'inputMessageCount',
  'messages',
  'inbox',
  'iteration',
  'invocations',
  'consecutiveNudges',
  'restrictionInjections',
  'usage',
  'limits',
  'loopTracker',
  'breaker',
  'turn',
  'externalStopRequested',
  'compaction',
  'segment',
  'toolCallsExecuted',
  'lastToolResults',
  'releasedIterations',
  'resultCache',
  'nested',
  'outputCorrections',
] as const satisfies readonly (keyof RunRecord)[];
type CarriedFields = Pick<RunRecord, (typeof CARRIED)[number]>;

/**
 * What one Temporal run of an agent run hands the next (the workflow's second argument): everything the loop counts,
 * so limits, stop conditions and the result see one run, and the event log's newest events.
 */
export type ContinueAsNewState = CarriedFields & {
  /** The version of this shape ({@link CONTINUE_AS_NEW_STATE_VERSION}). */
  schemaVersion: typeof CONTINUE_AS_NEW_STATE_VERSION;
  /** Temporal runs this agent run has had before this one. */
  continuations: number;
  events: CarriedEvents;
  /** When the run's `timeout` passes (an ISO time), if it has one: it does not start again with each Temporal run. */
  deadline?: string;
};

/** The carried fields of `from`. */
function carried(from: CarriedFields): CarriedFields {
  return Object.fromEntries(CARRIED.map((key) => [key, from[key]])) as CarriedFields;
}

/**
 * Whether this Temporal run continues as new before its next model call: after
 * `iterationsPerRun` iterations, or when Temporal suggests it (history past
 * 4 MiB or 4,096 events), but never before it has run one iteration itself.
 */
export function shouldContinueAsNew(
  iterationsThisRun: number,
  iterationsPerRun: number | undefined,
  suggested: boolean,
): boolean {
  if (iterationsThisRun < 1) return false;
  return suggested || (iterationsPerRun !== undefined && iterationsThisRun >= iterationsPerRun);
}

/**
 * The input the next Temporal run is started with: the run's own, without its
 * conversation, which travels once, in the continuation (both must fit in
 * one of Temporal's payloads).
 */
export function inputWithoutConversation(rawInput: unknown): unknown {
  if (typeof rawInput !== 'object' || rawInput === null) return rawInput;
  return Object.fromEntries(Object.entries(rawInput).filter(([key]) => key !== 'message' && key !== 'messages'));
}

/**
 * What a continued run checks of its input: its settings, with a stand-in for
 * the conversation. The carried conversation is not checked again: the model
 * wrote part of it, and the first run already accepted it.
 */
export function inputToValidate(rawInput: unknown): unknown {
  if (typeof rawInput !== 'object' || rawInput === null) return rawInput;
  return {
    ...(inputWithoutConversation(rawInput) as Record<string, unknown>),
    message: '(carried by continue-as-new)',
  };
}

/**
 * The continue-as-new arguments made to fit in one Temporal payload: events are
 * dropped, oldest first, until they do; then the result cache's entries,
 * oldest first (reading one answers that it was dropped). Undefined when even
 * without either they do not (then the run cannot continue as new).
 */
export function fitContinueAsNewState(
  input: unknown,
  continuation: ContinueAsNewState,
): { continuation: ContinueAsNewState; bytes: number } | undefined {
  let fitted = continuation;
  for (;;) {
    const bytes = jsonBytes([input, fitted]);
    if (bytes <= PAYLOAD_BUDGET_BYTES) return { continuation: fitted, bytes };
    const recent = fitted.events.recent;
    if (recent.length > 0) {
      fitted = { ...fitted, events: { ...fitted.events, recent: recent.slice(Math.ceil(recent.length / 2)) } };
    } else if (fitted.resultCache !== undefined && fitted.resultCache.entries.length > 0) {
      fitted = { ...fitted, resultCache: withoutOldestEntry(fitted.resultCache) };
    } else {
      return undefined;
    }
  }
}

/**
 * Whether a continue-as-new would leave summarised messages behind: its result
 * need not hold the whole conversation
 * (`resultMessages: 'all'`), and a compaction has summarised messages this
 * Temporal run still holds.
 */
export function canLeaveSummarisedBehind({ run, input }: Pick<RunContext, 'run' | 'input'>): boolean {
  return input.resultMessages !== 'all' && hasSummarisedToLeave(run);
}

/**
 * The run as its next Temporal run needs it, between iterations only. With `leaveBehindIn` the messages a compaction
 * summarised stay in this Temporal run, which the transcript points back to (`transcript-segment.ts`).
 */
export function continueAsNewStateOf(
  run: RunRecord,
  continuations: number,
  deadline: string | undefined,
  leaveBehindIn?: string,
): ContinueAsNewState {
  const fields = carried(run);
  return {
    schemaVersion: CONTINUE_AS_NEW_STATE_VERSION,
    ...(leaveBehindIn === undefined ? fields : leaveSummarisedBehind(fields, leaveBehindIn)),
    continuations: continuations + 1,
    events: run.events.carry(),
    ...(deadline === undefined ? {} : { deadline }),
  };
}

/** A run record that takes up where the previous Temporal run left off. */
export function resumedRunRecord(continuation: ContinueAsNewState): RunRecord {
  return { ...createRunRecord(), ...carried(continuation), events: new EventLog(continuation.events) };
}
