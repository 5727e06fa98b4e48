import { TEMPORAL_PAYLOAD_LIMIT_BYTES, jsonBytes, type ChatMessage, type RunLimits, type Usage } from '../shared';
import type { BreakerState } from './circuit-breaker';
import { EventLog, type CarriedEvents } from './event-log';
import type { LoopTracker } from './loop-detection';
import { createRunRecord, type RunRecord } from './run-record';

/**
 * What one Temporal run of an agent run hands to the next when it continues
 * as new (the workflow's second argument; callers never pass it). Everything
 * the loop counts goes along, so limits, stop conditions and the result see
 * one run; the event log brings its newest events and keeps numbering.
 */
export interface RunContinuation {
  /** Temporal runs this agent run has had before this one. */
  continuations: number;
  /** Messages the run's own input brought: the result's `generatedMessages` begin after them. */
  inputMessageCount: number;
  messages: ChatMessage[];
  inbox: string[];
  iteration: number;
  invocations: number;
  consecutiveNudges: number;
  restrictionInjections: number;
  usage: Usage;
  limits: RunLimits;
  loopTracker: LoopTracker;
  breaker: BreakerState;
  turn: RunRecord['turn'];
  externalStopRequested: boolean;
  events: CarriedEvents;
  /** When the run's `timeout` passes (an ISO time), if it has one: it does not start again with each Temporal run. */
  deadline?: string;
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

/** Room left under the payload limit for the payload's own metadata. */
const HANDOVER_HEADROOM_BYTES = 16 * 1024;

/**
 * The hand-over's arguments made to fit in one Temporal payload: events are
 * dropped, oldest first, until they do. Undefined when even without events
 * they do not (then the run cannot continue as new).
 */
export function fitHandOver(input: unknown, continuation: RunContinuation): { continuation: RunContinuation; bytes: number } | undefined {
  const limit = TEMPORAL_PAYLOAD_LIMIT_BYTES - HANDOVER_HEADROOM_BYTES;
  let fitted = continuation;
  for (;;) {
    const bytes = jsonBytes([input, fitted]);
    if (bytes <= limit) return { continuation: fitted, bytes };
    const recent = fitted.events.recent;
    if (recent.length === 0) return undefined;
    fitted = { ...fitted, events: { ...fitted.events, recent: recent.slice(Math.ceil(recent.length / 2)) } };
  }
}

/** The run as its next Temporal run needs it. Only called between iterations, when nothing waits for a decision or an answer. */
export function continuationOf(run: RunRecord, continuations: number, deadline: string | undefined): RunContinuation {
  return {
    continuations: continuations + 1,
    inputMessageCount: run.inputMessageCount,
    messages: run.messages,
    inbox: run.inbox,
    iteration: run.iteration,
    invocations: run.invocations,
    consecutiveNudges: run.consecutiveNudges,
    restrictionInjections: run.restrictionInjections,
    usage: run.usage,
    limits: run.limits,
    loopTracker: run.loopTracker,
    breaker: run.breaker,
    turn: run.turn,
    externalStopRequested: run.externalStopRequested,
    events: run.events.carry(),
    ...(deadline === undefined ? {} : { deadline }),
  };
}

/** A run record that takes up where the previous Temporal run left off. */
export function resumedRunRecord(continuation: RunContinuation): RunRecord {
  return {
    ...createRunRecord(),
    inputMessageCount: continuation.inputMessageCount,
    messages: continuation.messages,
    inbox: continuation.inbox,
    iteration: continuation.iteration,
    invocations: continuation.invocations,
    consecutiveNudges: continuation.consecutiveNudges,
    restrictionInjections: continuation.restrictionInjections,
    usage: continuation.usage,
    limits: continuation.limits,
    loopTracker: continuation.loopTracker,
    breaker: continuation.breaker,
    turn: continuation.turn,
    externalStopRequested: continuation.externalStopRequested,
    events: new EventLog(continuation.events),
  };
}
