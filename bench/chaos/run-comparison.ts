import type { AgentResult } from '../../src/shared';

/** How one run ended, as the chaos harness saw it. */
export type RunOutcome =
  | { status: 'completed'; result: AgentResult }
  /** The workflow failed, was terminated or timed out; `failure` is its type and message. */
  | { status: 'failed'; failure: string }
  /** Still running at the harness's deadline. */
  | { status: 'stuck' };

/** The verdict on one run against its crash-free reference. */
export type Comparison = { identical: true } | { identical: false; difference: string };

/**
 * Compares a run that went through crashes with the same run on a worker
 * that never crashed. Both must have completed, with results equal field for
 * field: `response`, `terminationReason`, the counters, `usage`, every
 * message (tool results included) and `generatedMessages`.
 *
 * No field of the result is ignored, on purpose: the result holds no
 * timestamps, durations, attempt numbers or Temporal ids (those live in the
 * event log and the history, which are not compared), and the chaos model
 * and tool answer from their input alone, so any difference is a run that
 * went differently. A stuck or failed run never counts as identical, even if
 * the reference failed the same way: the reference must complete.
 */
export function compareOutcomes(reference: RunOutcome, observed: RunOutcome): Comparison {
  if (reference.status !== 'completed') {
    return { identical: false, difference: `the crash-free reference did not complete (${describeOutcome(reference)})` };
  }
  if (observed.status !== 'completed') {
    return { identical: false, difference: `the run ${describeOutcome(observed)}; crash-free it completed` };
  }
  const difference = firstDifference(reference.result, observed.result, 'result');
  return difference === undefined ? { identical: true } : { identical: false, difference };
}

/** A few words on how a run ended, for the report. */
export function describeOutcome(outcome: RunOutcome): string {
  switch (outcome.status) {
    case 'completed':
      return `completed (${outcome.result.terminationReason.type})`;
    case 'failed':
      return `failed: ${outcome.failure}`;
    case 'stuck':
      return 'was still running at the deadline (stuck)';
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
