import { z } from 'zod';
import { builtOnce } from '../../shared/built-once';
import { CONTEXT_RELEASE_LIMITS } from '../../shared/defaults/context-control';
import { INPUT_BOUNDS } from '../../shared/defaults/input-bounds';
import { MESSAGE_PAGES } from '../../shared/defaults/sizes';
import { chatMessageSchema, usageSchema } from '../../shared/messages';
import { childUsageSchema } from '../../shared/agent-result';
import { tokenBudgetSchema } from '../../shared/control';
import { readCarriedEvents, type CarriedEvents } from './event-log';
import type { ContinueAsNewState } from './continue-as-new-state';
import { readerFor, type VersionReader } from '../rules/versioned-reading';

/**
 * The state continue-as-new carries ({@link ContinueAsNewState}) from one Temporal run of an agent run to the next,
 * maybe on a newer worker. {@link parseContinueAsNewState} reads only the `schemaVersion` this code writes (4: run
 * state, compaction, stop-condition context, nested usage, result cache); any other comes back as problems, never a
 * throw, and the run fails with `InvalidAgentInput`.
 *
 * To add version 5: write `continueAsNewV5Schema` and bump {@link CONTINUE_AS_NEW_STATE_VERSION}, `ContinueAsNewState`
 * and `continueAsNewStateOf`; add `5` to `READERS` with version 4 read through an upgrade (runs that continued as new
 * on older code arrive with it, until no run or history to replay can); test both in
 * `test/unit/continue-as-new-schema.test.ts`.
 */

/** The version of the continue-as-new state this code writes. */
export const CONTINUE_AS_NEW_STATE_VERSION = 4;

/** A counter the loop keeps. */
const count = builtOnce('continueAsNewSchema.count', () => z.number().int().nonnegative());

/** Identical calls or errors in a row: the loop detector's and the circuit breaker's state. */
const streakFields = builtOnce('continueAsNewSchema.streakFields', () => ({ toolName: z.string().nullable(), count }));

/** Where the current turn began, for the stop conditions. */
const turnSchema = builtOnce('continueAsNewSchema.turn', () =>
  z.object({
    startedAtMs: z.number(),
    messageIndex: count,
    iteration: count,
    usage: usageSchema,
    executedTools: z.array(z.string()),
  }),
);

/** The run's state: its conversation, counters, limits, guards and turn. */
const continueAsNewFields = builtOnce('continueAsNewSchema.continueAsNewFields', () => ({
  inputMessageCount: count,
  messages: z.array(chatMessageSchema),
  inbox: z.array(z.string()),
  iteration: count,
  invocations: count,
  consecutiveNudges: count,
  restrictionInjections: count,
  usage: usageSchema,
  limits: z.object({ maxInvocations: count, tokenBudget: tokenBudgetSchema }),
  loopTracker: z.object({ ...streakFields, argumentsKey: z.string().nullable() }),
  breaker: z.object({ ...streakFields, errorText: z.string().nullable() }),
  turn: turnSchema,
  externalStopRequested: z.boolean(),
  /** Temporal runs this agent run has had before the one it is handed to. */
  continuations: count,
  /** The event log's newest events: only their frame is checked here; what each event holds is the event log's business. */
  events: z.object({ nextSeq: count, recent: z.array(z.unknown()) }),
  /** When the run's `timeout` passes, an ISO time. */
  deadline: z.string().optional(),
}));

/** The run's compaction, when it has compacted, and where the carried messages sit in the transcript. */
const compactionFields = builtOnce('continueAsNewSchema.compactionFields', () => ({
  /** The summary and the last transcript index it stands for (`rules/model-context.ts`). */
  compaction: z
    .object({ throughIndex: z.number().int().min(-1), summary: z.string(), iteration: count, count })
    .optional(),
  /** Where `messages` sit in the transcript, once summarised messages were left behind. */
  segment: z
    .object({
      base: count,
      pinned: count,
      runs: z
        .array(z.object({ runId: z.string(), from: count }))
        .max(MESSAGE_PAGES.maxListedRuns)
        .optional(),
    })
    .optional(),
  /** The turn, with how many messages it produced were left behind. */
  turn: turnSchema.extend({ leftBehind: count.optional() }),
}));

/** What a custom stop condition sees, and the released iterations; each optional with an empty default. */
const stopContextFields = builtOnce('continueAsNewSchema.stopContextFields', () => ({
  /** Tool calls executed so far, across turns. */
  toolCallsExecuted: count.default(0),
  /** The latest batch's results as stop conditions see them (as many as the model's answer had calls: not bounded here). */
  lastToolResults: z
    .array(z.object({ toolName: z.string(), callId: z.string(), contentPreview: z.string(), isError: z.boolean() }))
    .default([]),
  /** Iterations released with `context_release`. */
  releasedIterations: z.array(count).max(CONTEXT_RELEASE_LIMITS.maxReleased).default([]),
  /** Structured output: answers sent back to the model as not valid, once there was one. */
  outputCorrections: count.optional(),
}));

/**
 * Nested agents' usage, once the run started one (bounded: the list is capped, the rest counted and summed),
 * and the turn's answers of nested agents (`sourceMatch`, `stopMessage`).
 */
const nestedFields = builtOnce('continueAsNewSchema.nestedFields', () => ({
  nested: z
    .object({
      children: z.array(childUsageSchema),
      omitted: count,
      total: usageSchema,
    })
    .optional(),
  turn: compactionFields.turn.extend({
    agentAnswers: z.array(z.object({ toolName: z.string(), stopMessage: z.boolean() })).optional(),
  }),
}));

/** The run's result cache, once it has cached a result. */
const resultCacheFields = builtOnce('continueAsNewSchema.resultCacheFields', () => ({
  resultCache: z
    .object({
      entries: z.array(
        z.object({
          ref: z.string(),
          toolName: z.string(),
          callId: z.string(),
          iteration: count,
          content: z.string(),
          originalChars: count,
        }),
      ),
      nextNumber: z.number().int().min(1),
    })
    .optional(),
}));

/** Version 4, the current one. */
export const continueAsNewV4Schema = builtOnce('continueAsNewSchema.v4', () =>
  z.object({
    schemaVersion: z.literal(4),
    ...continueAsNewFields,
    ...compactionFields,
    ...stopContextFields,
    ...nestedFields,
    ...resultCacheFields,
  }),
);
type ContinueAsNewV4 = z.infer<typeof continueAsNewV4Schema>;

/** How each version is read: only the current one. */
const READERS: Record<number, VersionReader<ContinueAsNewV4>> = {
  4: (raw) => continueAsNewV4Schema.safeParse(raw),
};

/** What a field's problem says when the field itself is wrong (missing, or of another type). */
const EXPECTED: Record<
  | keyof typeof continueAsNewFields
  | keyof typeof compactionFields
  | keyof typeof stopContextFields
  | keyof typeof nestedFields
  | keyof typeof resultCacheFields,
  string
> = {
  inputMessageCount: 'a whole number, 0 or more',
  messages: 'an array',
  inbox: 'an array',
  iteration: 'a whole number, 0 or more',
  invocations: 'a whole number, 0 or more',
  consecutiveNudges: 'a whole number, 0 or more',
  restrictionInjections: 'a whole number, 0 or more',
  usage: 'an object',
  limits: 'an object',
  loopTracker: 'an object',
  breaker: 'an object',
  turn: 'an object',
  externalStopRequested: 'true or false',
  continuations: 'a whole number, 0 or more',
  events: '{ nextSeq, recent }',
  deadline: 'a text, if given',
  compaction: '{ throughIndex, summary, iteration, count }, if given',
  segment: 'an object',
  toolCallsExecuted: 'a whole number, 0 or more, if given',
  lastToolResults: 'an array of { toolName, callId, contentPreview, isError }, if given',
  releasedIterations: 'an array of whole numbers, if given',
  outputCorrections: 'a whole number, 0 or more, if given',
  resultCache: '{ entries, nextNumber }, if given',
  nested: '{ children, omitted, total }, if given',
};

/** Fields whose inner problems are told as one line: a conversation's message, the event log's frame. */
const WHOLE_FIELD: Partial<Record<keyof typeof EXPECTED, string>> = {
  messages: 'chat messages',
  events: '{ nextSeq, recent }',
};

/** One problem as a line naming the field: `continuation.iteration: expected a whole number, 0 or more`. */
function problemOf(issue: z.core.$ZodIssue): string {
  const [field, ...inner] = issue.path.map(String);
  if (field === undefined) return 'continuation: expected the object a run hands over when it continues as new';
  if (!(field in EXPECTED)) return `continuation.${[field, ...inner].join('.')}: ${issue.message}`;
  const known = field as keyof typeof EXPECTED;
  if (inner.length === 0) return `continuation.${field}: expected ${EXPECTED[known]}`;
  const whole = WHOLE_FIELD[known];
  if (whole !== undefined) return `continuation.${field}: expected ${whole}`;
  return `continuation.${[field, ...inner].join('.')}: ${issue.message}`;
}

/** The carried events as this version writes them: unreadable ones dropped (`readCarriedEvents`). */
function carriedEvents(events: ContinueAsNewV4['events']): CarriedEvents {
  return readCarriedEvents(events);
}

/**
 * A continue-as-new state of the version this code writes, parsed; or the problems with
 * it, one line per field, never a throw.
 */
export function parseContinueAsNewState(
  raw: unknown,
): { ok: true; continuation: ContinueAsNewState } | { ok: false; problems: string[] } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, problems: ['continuation: expected the object a run hands over when it continues as new'] };
  }
  const reader = readerFor(raw, READERS, 'continuation.schemaVersion', 'the hand-over versions this worker reads');
  if ('problem' in reader) return { ok: false, problems: [reader.problem] };
  const parsed = reader.read(raw);
  if (!parsed.success) {
    const problems = [...new Set(parsed.error.issues.map(problemOf))];
    return {
      ok: false,
      problems: problems.slice(0, INPUT_BOUNDS.problems).map((problem) => problem.slice(0, INPUT_BOUNDS.problemChars)),
    };
  }
  return { ok: true, continuation: { ...parsed.data, events: carriedEvents(parsed.data.events) } };
}
