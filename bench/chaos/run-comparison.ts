import type { AgentResult } from '../../src/shared/agent-result';
import type { StallDiagnosis } from './stall-diagnosis';

/** How one run ended, as the chaos harness saw it. */
export type RunOutcome =
  /** `children`: the nested agents the run started, when the harness read them (`child-runs.ts`). */
  | { status: 'completed'; result: AgentResult; children?: ChildRun[] }
  /** The workflow failed, was terminated or timed out; `failure` is its type and message. */
  | { status: 'failed'; failure: string }
  /** Still running at the harness's deadline; `diagnosis` says whether it still moved and what it waited on. */
  | { status: 'stuck'; diagnosis?: StallDiagnosis };

/** A nested agent's run, as the harness found it under the run that started it. */
export interface ChildRun {
  /** The parent's call that started it: the child's workflow id is `<parent workflow id>/<callId>`. */
  callId: string;
  /** Every Temporal run the child's workflow id had, oldest first: one, unless the child was started again. */
  runIds: string[];
  /** A kill landed in it: a workflow task timed out or failed, or an activity completed on a later attempt. Not compared. */
  interrupted: boolean;
  outcome: RunOutcome;
}

/**
 * The verdict on one run against its crash-free reference. `onlyCacheRefs`:
 * the two are equal once each result-cache reference (`cache-N`) is renamed
 * by where it first appears, so they differ only in which number a cached
 * result got; still a difference (see {@link compareOutcomes}).
 */
export type Comparison = { identical: true } | { identical: false; difference: string; onlyCacheRefs?: true };

/**
 * Compares a run that went through crashes with the same run on a worker
 * that never crashed. Both must have completed, with results equal field for
 * field: `response`, `terminationReason`, the counters, `usage`, every
 * message (tool results and `result_cache` slices included) and
 * `generatedMessages`; and so must their nested agents, child by child
 * (`children`): the call that started it, how many Temporal runs it had, and
 * its own outcome, compared the same way.
 *
 * One field is not compared as it is, on purpose: a child's Temporal run id
 * (`usage`'s `children[].runId`), new in every run. It is compared as the
 * call whose child had that run, so a parent that names a run none of its
 * children had still differs. Nothing else is left out: the result holds no
 * timestamps, durations, attempt numbers or workflow ids (those live in the
 * event log and the history, which are not compared), and the chaos model
 * and tool answer from their input alone, so any difference is a run that
 * went differently. A stuck or failed run never counts as identical, even if
 * the reference failed the same way: the reference must complete.
 */
export function compareOutcomes(reference: RunOutcome, observed: RunOutcome): Comparison {
  if (reference.status !== 'completed') {
    return {
      identical: false,
      difference: `the crash-free reference did not complete (${describeOutcome(reference)})`,
    };
  }
  if (observed.status !== 'completed') {
    return { identical: false, difference: `the run ${describeOutcome(observed)}; crash-free it completed` };
  }
  const difference = outcomeDifference(reference, observed, (value) => value);
  if (difference === undefined) return { identical: true };
  // Told apart because the chaos runs once found exactly this: the cacher numbered a parallel batch's results in the
  // order they completed, which a crash (or mere timing) turns round. It still counts: a run's transcript must be
  // its input's alone.
  if (outcomeDifference(reference, observed, renumberCacheRefs) === undefined) {
    return {
      identical: false,
      difference: `${difference} (equal but for the numbering of cached results)`,
      onlyCacheRefs: true,
    };
  }
  return { identical: false, difference };
}

function outcomeDifference(
  reference: Extract<RunOutcome, { status: 'completed' }>,
  observed: Extract<RunOutcome, { status: 'completed' }>,
  view: <Value>(value: Value) => Value,
): string | undefined {
  return (
    firstDifference(view(comparableResult(reference)), view(comparableResult(observed)), 'result') ??
    firstDifference(view(comparableChildren(reference)), view(comparableChildren(observed)), 'children')
  );
}

/**
 * `value` with every result-cache reference (`cache-N`, in the summaries,
 * the `result_cache` calls and their slices) renamed `cache-1`, `cache-2`,
 * ... in the order the references first appear in its JSON text, so two runs
 * that cached the same results under other numbers read alike, and a read
 * that got another result's slice still differs in the slice.
 */
function renumberCacheRefs<Value>(value: Value): Value {
  const text = JSON.stringify(value);
  if (text === undefined) return value;
  const renamed = new Map<string, string>();
  return JSON.parse(
    text.replace(/\bcache-\d+\b/g, (ref) => {
      const name = renamed.get(ref) ?? `cache-${renamed.size + 1}`;
      renamed.set(ref, name);
      return name;
    }),
  ) as Value;
}

/**
 * A completed run's result with each child's run id replaced by the call whose child had that run, and the times,
 * durations and Temporal ids in its readers' record (`closedRun`: the last state and newest events) left out.
 */
function comparableResult(outcome: Extract<RunOutcome, { status: 'completed' }>): AgentResult {
  const closedRun = (outcome.result as { closedRun?: unknown }).closedRun;
  const result =
    closedRun === undefined ? outcome.result : { ...outcome.result, closedRun: timeless(inCallOrder(closedRun)) };
  if (result.children === undefined) return result;
  const callOfRun = new Map(
    (outcome.children ?? []).flatMap((child) => child.runIds.map((runId) => [runId, child.callId] as const)),
  );
  return {
    ...result,
    children: result.children.map((child) => {
      const callId = callOfRun.get(child.runId);
      return {
        ...child,
        runId: callId === undefined ? `${child.runId} (a run of none of its children)` : `the child of ${callId}`,
      };
    }),
  };
}

/**
 * The record with each stretch of consecutive per-call events (those naming a `callId`) in call order and the events'
 * numbers left out: calls of one batch run in parallel and end in whatever order they finish, which a killed worker
 * changes, so only which events each call wrote, not how they interleaved, is compared.
 */
function inCallOrder(closedRun: unknown): unknown {
  const events = isObject(closedRun) && isObject(closedRun.events) ? closedRun.events.recent : undefined;
  if (!Array.isArray(events)) return closedRun;
  const ordered: unknown[] = [];
  let stretch: Record<string, unknown>[] = [];
  const flush = () => {
    ordered.push(...stretch.sort((a, b) => String(a.callId).localeCompare(String(b.callId))));
    stretch = [];
  };
  for (const event of events) {
    if (isObject(event) && typeof event.callId === 'string') stretch.push(event);
    else {
      flush();
      ordered.push(event);
    }
  }
  flush();
  const renumbered = ordered.map((event) => (isObject(event) ? { ...event, seq: '<seq>' } : event));
  return {
    ...(closedRun as Record<string, unknown>),
    events: { ...(closedRun as { events: object }).events, recent: renumbered },
  };
}

/**
 * `value` with every ISO time, every `...Ms` or `...At` field, and every Temporal id (a nested agent's `workflowId`
 * and `runId`, which name the run they belong to: its children are compared apart) replaced by a placeholder.
 */
function timeless(value: unknown, key = ''): unknown {
  if (/(Ms|At)$/.test(key) || key === 'at') return '<time>';
  if (key === 'workflowId' || key === 'runId') return '<id>';
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value)) return '<time>';
  if (Array.isArray(value)) return value.map((item) => timeless(item));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, timeless(item, name)]));
  return value;
}

/** What is compared of a run's nested agents: per child, its call, its number of Temporal runs, and its outcome. */
function comparableChildren(outcome: Extract<RunOutcome, { status: 'completed' }>): unknown[] {
  return (outcome.children ?? []).map((child) => ({
    callId: child.callId,
    temporalRuns: child.runIds.length,
    outcome:
      child.outcome.status === 'completed'
        ? { status: 'completed', result: comparableResult(child.outcome), children: comparableChildren(child.outcome) }
        : child.outcome,
  }));
}

/** A few words on how a run ended, for the report. */
export function describeOutcome(outcome: RunOutcome): string {
  switch (outcome.status) {
    case 'completed':
      return `completed (${outcome.result.terminationReason.type})`;
    case 'failed':
      return `failed: ${outcome.failure}`;
    case 'stuck':
      return outcome.diagnosis === undefined
        ? 'was still running at the deadline (stuck)'
        : outcome.diagnosis.progressing
          ? `was still running at the deadline but progressing (${describeStall(outcome.diagnosis)})`
          : `was still running at the deadline (stuck: ${describeStall(outcome.diagnosis)})`;
  }
}

/**
 * The first place, in document order, where `actual` differs from
 * `expected`: its path (`result.messages[4].content`) and both values. Object
 * keys are compared as sets, so key order does not matter, and a key holding
 * `undefined` counts as absent (JSON drops it on the way through Temporal).
 */
export function firstDifference(expected: unknown, actual: unknown, path: string): string | undefined {
  if (Object.is(expected, actual)) return undefined;
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual)) return describe(path, expected, actual);
    for (let index = 0; index < Math.min(expected.length, actual.length); index++) {
      const difference = firstDifference(expected[index], actual[index], `${path}[${index}]`);
      if (difference !== undefined) return difference;
    }
    if (expected.length !== actual.length) {
      return `${path}: ${expected.length} entries expected, ${actual.length} found`;
    }
    return undefined;
  }
  if (isObject(expected) && isObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    for (const key of keys) {
      const difference = firstDifference(expected[key], actual[key], `${path}.${key}`);
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  return describe(path, expected, actual);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function describe(path: string, expected: unknown, actual: unknown): string {
  return `${path}: expected ${show(expected)}, found ${show(actual)}`;
}

/** A value as JSON, cut to a line's worth. */
function show(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

function describeStall(diagnosis: StallDiagnosis): string {
  const pending = diagnosis.pending.length === 0 ? 'nothing pending' : diagnosis.pending.join('; ');
  return `last event ${diagnosis.lastEvent}, ${(diagnosis.lastEventAgoMs / 1000).toFixed(0)} s before; ${pending}`;
}
