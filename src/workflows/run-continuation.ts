import { z } from 'zod';
import { PAYLOAD_BUDGET_BYTES, chatMessageSchema, jsonBytes } from '../shared';
import { EventLog, type CarriedEvents } from './event-log';
import { createRunRecord, type RunRecord } from './run-record';

/** The fields of the run record a hand-over carries as they are: everything the loop counts, and the conversation. */
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
] as const satisfies readonly (keyof RunRecord)[];
type CarriedFields = Pick<RunRecord, (typeof CARRIED)[number]>;

/**
 * What one Temporal run of an agent run hands to the next when it continues
 * as new (the workflow's second argument; callers never pass it). Everything
 * the loop counts goes along, so limits, stop conditions and the result see
 * one run; the event log brings its newest events and keeps numbering.
 */
export type RunContinuation = CarriedFields & {
  /** Temporal runs this agent run has had before this one. */
  continuations: number;
  events: CarriedEvents;
  /** When the run's `timeout` passes (an ISO time), if it has one: it does not start again with each Temporal run. */
  deadline?: string;
};

/** What each field of a hand-over must be for the next run to take it up: checked before the run record is built from it. */
const HAND_OVER_FIELDS: Record<keyof RunContinuation, 'count' | 'array' | 'object' | 'boolean' | 'text?'> = {
  inputMessageCount: 'count',
  messages: 'array',
  inbox: 'array',
  iteration: 'count',
  invocations: 'count',
  consecutiveNudges: 'count',
  restrictionInjections: 'count',
  usage: 'object',
  limits: 'object',
  loopTracker: 'object',
  breaker: 'object',
  turn: 'object',
  externalStopRequested: 'boolean',
  continuations: 'count',
  events: 'object',
  deadline: 'text?',
};

/**
 * The workflow's arguments after the input, read: a hand-over exists only
 * when this Temporal run was continued from another (`continued`); a caller
 * who starts the workflow with a second argument is refused, since taking it
 * as a hand-over would start the run in the middle of nowhere. A malformed
 * hand-over is a problem too, not a throw: a throw would fail the workflow
 * task and retry it forever.
 */
export function readHandOver(
  afterInput: readonly unknown[],
  continued: boolean,
): { ok: true; continuation?: RunContinuation } | { ok: false; problems: string[] } {
  // Trailing undefined arguments are no arguments: a client may send `[input, undefined]`.
  let extra = afterInput.length;
  while (extra > 0 && afterInput[extra - 1] === undefined) extra -= 1;
  if (!continued) {
    if (extra === 0) return { ok: true };
    return {
      ok: false,
      problems: [
        `arguments: agentWorkflow takes one argument, the run's input, and was started with ${extra + 1}; ` +
          'a second is handed over only by the run itself when it continues as new',
      ],
    };
  }
  if (extra > 1) return { ok: false, problems: [`arguments: a continued agentWorkflow takes two arguments, the input and the hand-over, and was given ${extra + 1}`] };
  const handOver = afterInput[0];
  if (handOver === undefined) return { ok: true };
  let problems: string[];
  try {
    problems = handOverProblems(handOver);
  } catch (error) {
    problems = [`continuation: could not be read (${error instanceof Error ? error.message : String(error)})`];
  }
  return problems.length === 0 ? { ok: true, continuation: handOver as RunContinuation } : { ok: false, problems };
}

/** What is wrong with a hand-over, field by field; empty when the next run can take it up. */
function handOverProblems(handOver: unknown): string[] {
  if (typeof handOver !== 'object' || handOver === null || Array.isArray(handOver)) return ['continuation: expected the object a run hands over when it continues as new'];
  const fields = handOver as Record<string, unknown>;
  const problems = Object.entries(HAND_OVER_FIELDS).flatMap(([field, kind]) => {
    const value = fields[field];
    const fits =
      kind === 'count'
        ? typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
        : kind === 'array'
          ? Array.isArray(value)
          : kind === 'object'
            ? typeof value === 'object' && value !== null && !Array.isArray(value)
            : kind === 'boolean'
              ? typeof value === 'boolean'
              : value === undefined || typeof value === 'string';
    return fits ? [] : [`continuation.${field}: expected ${kind === 'count' ? 'a whole number, 0 or more' : kind === 'text?' ? 'a text, if given' : `a${kind === 'array' ? 'n' : ''} ${kind}`}`];
  });
  const events = fields.events as { nextSeq?: unknown; recent?: unknown } | undefined;
  if (problems.length === 0 && !carriedMessagesSchema.safeParse(fields.messages).success) {
    problems.push('continuation.messages: expected chat messages');
  }
  if (problems.length === 0 && !(typeof events?.nextSeq === 'number' && Number.isSafeInteger(events.nextSeq) && Array.isArray(events.recent))) {
    problems.push('continuation.events: expected { nextSeq, recent }');
  }
  return problems;
}

/** A hand-over's conversation: written in part by the model, so only its shape is checked, not the input's bounds. */
const carriedMessagesSchema = z.array(chatMessageSchema);

/** The carried fields of `from`. */
function carried(from: CarriedFields): CarriedFields {
  return Object.fromEntries(CARRIED.map((key) => [key, from[key]])) as CarriedFields;
}

/**
 * Whether this Temporal run hands over before its next model call: after
 * `iterationsPerRun` iterations, or when Temporal suggests it (history past
 * 4 MiB or 4,096 events), but never before it has run one iteration itself.
 */
export function shouldContinueAsNew(iterationsThisRun: number, iterationsPerRun: number | undefined, suggested: boolean): boolean {
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
  return { ...(inputWithoutConversation(rawInput) as Record<string, unknown>), message: '(carried by continue-as-new)' };
}

/**
 * The hand-over's arguments made to fit in one Temporal payload: events are
 * dropped, oldest first, until they do. Undefined when even without events
 * they do not (then the run cannot continue as new).
 */
export function fitHandOver(input: unknown, continuation: RunContinuation): { continuation: RunContinuation; bytes: number } | undefined {
  let fitted = continuation;
  for (;;) {
    const bytes = jsonBytes([input, fitted]);
    if (bytes <= PAYLOAD_BUDGET_BYTES) return { continuation: fitted, bytes };
    const recent = fitted.events.recent;
    if (recent.length === 0) return undefined;
    fitted = { ...fitted, events: { ...fitted.events, recent: recent.slice(Math.ceil(recent.length / 2)) } };
  }
}

/** The run as its next Temporal run needs it. Only called between iterations, when nothing waits for a decision or an answer. */
export function continuationOf(run: RunRecord, continuations: number, deadline: string | undefined): RunContinuation {
  return {
    ...carried(run),
    continuations: continuations + 1,
    events: run.events.carry(),
    ...(deadline === undefined ? {} : { deadline }),
  };
}

/** A run record that takes up where the previous Temporal run left off. */
export function resumedRunRecord(continuation: RunContinuation): RunRecord {
  return { ...createRunRecord(), ...carried(continuation), events: new EventLog(continuation.events) };
}
