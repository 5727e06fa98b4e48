import { z } from 'zod';
import { chatMessageSchema } from '../../shared';
import type { RunContinuation } from './run-continuation';

/**
 * Reading `agentWorkflow`'s arguments after its input. Callers start a run
 * with its input alone; the second argument is the {@link RunContinuation}
 * a run hands to its next Temporal run when it continues as new. Nothing
 * here throws: a throw in a workflow fails its task and retries it forever,
 * so whatever is wrong with the arguments comes back as problems for
 * `InvalidAgentInput`.
 */

/** What a hand-over's field may be, and how a problem says what was expected. */
const KINDS = {
  count: { fits: (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0, expected: 'a whole number, 0 or more' },
  array: { fits: (value: unknown) => Array.isArray(value), expected: 'an array' },
  object: { fits: (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value), expected: 'an object' },
  boolean: { fits: (value: unknown) => typeof value === 'boolean', expected: 'true or false' },
  optionalText: { fits: (value: unknown) => value === undefined || typeof value === 'string', expected: 'a text, if given' },
} as const;

/** What each field of a hand-over must be for the next run to take it up (`resumedRunRecord` copies them as they are). */
const HAND_OVER_FIELDS: Record<keyof RunContinuation, keyof typeof KINDS> = {
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
  deadline: 'optionalText',
};

/** A hand-over's conversation: written in part by the model, so only its shape is checked, not the input's bounds. */
const carriedMessagesSchema = z.array(chatMessageSchema);

/**
 * The arguments after the input, read. A hand-over exists only when this
 * Temporal run was continued from another (`continued`): a caller who starts
 * the workflow with a second argument is refused, since taking it as a
 * hand-over would start the run from a state no run was ever in. Trailing
 * `undefined` arguments count as none.
 */
export function readHandOver(
  afterInput: readonly unknown[],
  continued: boolean,
): { ok: true; continuation?: RunContinuation } | { ok: false; problems: string[] } {
  let given = afterInput.length;
  while (given > 0 && afterInput[given - 1] === undefined) given -= 1;
  if (!continued) {
    if (given === 0) return { ok: true };
    return {
      ok: false,
      problems: [
        `arguments: agentWorkflow takes one argument, the run's input, and was started with ${given + 1}; ` +
          'a second is handed over only by the run itself when it continues as new',
      ],
    };
  }
  if (given > 1) {
    return { ok: false, problems: [`arguments: a continued agentWorkflow takes two arguments, its input and the hand-over, and was given ${given + 1}`] };
  }
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
  if (!KINDS.object.fits(handOver)) return ['continuation: expected the object a run hands over when it continues as new'];
  const fields = handOver as Record<string, unknown>;
  const problems = Object.entries(HAND_OVER_FIELDS).flatMap(([field, kind]) =>
    KINDS[kind].fits(fields[field]) ? [] : [`continuation.${field}: expected ${KINDS[kind].expected}`],
  );
  if (problems.length > 0) return problems;
  if (!carriedMessagesSchema.safeParse(fields.messages).success) return ['continuation.messages: expected chat messages'];
  const events = fields.events as { nextSeq?: unknown; recent?: unknown };
  if (!KINDS.count.fits(events.nextSeq) || !Array.isArray(events.recent)) return ['continuation.events: expected { nextSeq, recent }'];
  return [];
}
