import { z } from 'zod';
import { builtOnce } from './built-once';
import { durationSchema, msToNumber } from './duration';
import { tokenBudgetSchema, type TokenBudget } from './control';
import { INPUT_BOUNDS } from './defaults/input-bounds';
import { jsonBytes } from './payload-limits';

/**
 * `stopWhen`: a JSON tree of conditions (after AutoGen's termination conditions), each node one condition key, `any`
 * and `all` nesting freely; evaluated in `src/workflows/rules/stop-conditions.ts`.
 */

/** A Temporal duration as `durationSchema` accepts it: milliseconds, or text such as "30s". */
export type StopDuration = number | string;

/** One node of a `stopWhen` tree. Every count is per turn; see `evaluateStopCondition`. */
export type StopCondition =
  /** Messages produced this turn (assistant, tool, injected system; not the opening user message) reach `n`. */
  | { maxMessages: number }
  /** An assistant message of this turn contains the text (case-sensitive). */
  | { textMention: string }
  /** The turn's token usage reaches any of the given limits. */
  | { tokenUsage: TokenBudget }
  /** Workflow time since the turn started reaches the duration. */
  | { timeout: StopDuration }
  /** The named tool has executed this turn. */
  | { functionCall: string }
  /** A tool named `transfer_to_<target>` has executed this turn. */
  | { handoff: string }
  /** Model calls this turn reach `n`. */
  | { maxIterations: number }
  /** An external stop was requested for the run. */
  | { external: true }
  /** The model's latest answer is text with no tool call (AutoGen's `TextMessageTermination`). */
  | { textMessage: true }
  /** A nested agent (`defineAgentTool`) ended its work this turn through a terminating tool or a `TerminateResponse`. */
  | { stopMessage: true }
  /** One of the named nested agents (agent tool names) answered this turn. */
  | { sourceMatch: string[] }
  /** A condition registered by name in workflow code, called with `params` (default `{}`). */
  | { custom: string; params?: Record<string, unknown> }
  /** Stops when any member stops (OR). */
  | { any: StopCondition[] }
  /** Stops when every member stops (AND). */
  | { all: StopCondition[] };

/** The condition keys, in the order error messages list them. */
const CONDITION_KEYS = [
  'maxMessages',
  'textMention',
  'tokenUsage',
  'timeout',
  'functionCall',
  'handoff',
  'maxIterations',
  'external',
  'textMessage',
  'stopMessage',
  'sourceMatch',
  'custom',
  'any',
  'all',
] as const;

type ConditionKey = (typeof CONDITION_KEYS)[number];

const positiveCount = builtOnce('stopConditions.positiveCount', () => z.number().int().positive());
const name = builtOnce('stopConditions.name', () => z.string().min(1).max(INPUT_BOUNDS.nameChars));
const mentionText = builtOnce('stopConditions.mentionText', () => z.string().min(1).max(INPUT_BOUNDS.shortTextChars));

/** Params of a custom condition: a JSON object small enough to render into a termination reason. */
const paramsSchema = builtOnce('stopConditions.params', () =>
  z
    .record(z.string(), z.unknown())
    .refine(
      (params) => paramsBytes(params) <= INPUT_BOUNDS.paramsBytes,
      `params must be at most ${INPUT_BOUNDS.paramsBytes} bytes of JSON`,
    ),
);

/** The JSON size of `params`; past any limit when they cannot be written as JSON at all. */
function paramsBytes(params: Record<string, unknown>): number {
  try {
    return jsonBytes(params);
  } catch {
    return Infinity;
  }
}

/**
 * Built on first use (inside `z.lazy`) because `any`/`all` refer back to
 * `stopConditionSchema`, and so that `durationSchema` is read only after
 * `./agent-input` has finished loading, whichever module loads first.
 */
function buildFormSchemas(): Record<ConditionKey, z.ZodType<StopCondition>> {
  const members = z
    .array(stopConditionSchema)
    .min(1, 'give at least one condition')
    .max(INPUT_BOUNDS.stopConditionMembers);
  return {
    maxMessages: z.strictObject({ maxMessages: positiveCount }),
    textMention: z.strictObject({ textMention: mentionText }),
    tokenUsage: z.strictObject({
      tokenUsage: tokenBudgetSchema.refine(
        (limits) =>
          limits.maxTotal !== undefined || limits.maxPrompt !== undefined || limits.maxCompletion !== undefined,
        'give maxTotal, maxPrompt or maxCompletion',
      ),
    }),
    timeout: z.strictObject({ timeout: durationSchema }),
    functionCall: z.strictObject({ functionCall: name }),
    handoff: z.strictObject({ handoff: name }),
    maxIterations: z.strictObject({ maxIterations: positiveCount }),
    external: z.strictObject({ external: z.literal(true) }),
    textMessage: z.strictObject({ textMessage: z.literal(true) }),
    stopMessage: z.strictObject({ stopMessage: z.literal(true) }),
    sourceMatch: z.strictObject({
      sourceMatch: z.array(name).min(1, 'name at least one agent tool').max(INPUT_BOUNDS.tools),
    }),
    custom: z.strictObject({ custom: name, params: paramsSchema.optional() }),
    any: z.strictObject({ any: members }),
    all: z.strictObject({ all: members }),
  };
}

/** The strict schema of each form of a node, by its condition key: what {@link stopConditionSchema} checks a node against, and what the HTTP API's OpenAPI document describes `stopWhen` with. */
export function stopConditionFormSchemas(): Readonly<Record<ConditionKey, z.ZodType<StopCondition>>> {
  return builtOnce('stopConditions.forms', buildFormSchemas);
}

/**
 * Validates a `stopWhen` tree. The node's one condition key picks the strict
 * schema it is checked against, so errors point at the field that is wrong
 * (`any[1].maxMessages: Too small…`) rather than at a whole failed union.
 */
export const stopConditionSchema: z.ZodType<StopCondition, StopCondition> = builtOnce(
  'stopConditions.stopCondition',
  () =>
    z.lazy(() => {
      const forms = stopConditionFormSchemas();
      return z.custom<StopCondition>().superRefine((value, context) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          context.addIssue({ code: 'custom', message: `expected an object with one of: ${CONDITION_KEYS.join(', ')}` });
          return;
        }
        const given = Object.keys(value);
        const keys = CONDITION_KEYS.filter((key) => given.includes(key));
        const [key] = keys;
        if (key === undefined) {
          context.addIssue({
            code: 'custom',
            message: `expected one of: ${CONDITION_KEYS.join(', ')}; got ${given.length === 0 ? 'an empty object' : given.map((name) => JSON.stringify(name)).join(', ')}`,
          });
          return;
        }
        if (keys.length > 1) {
          context.addIssue({
            code: 'custom',
            message: `one condition per object, got ${listed(keys)}; combine conditions with { any: [...] } or { all: [...] }`,
          });
          return;
        }
        const checked = forms[key].safeParse(value);
        if (!checked.success) {
          for (const issue of checked.error.issues) context.addIssue({ ...issue });
        }
      });
    }),
);

/** `a`, `a and b`, `a, b and c`. */
function listed(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.slice(-1).join('')}`;
}

/**
 * Milliseconds of a duration that `durationSchema` accepted. Lives here (not
 * in the workflow module) so workflow code needs no `@temporalio/common`
 * runtime import; throws `TypeError` on text that is not a duration.
 */
export function durationToMs(duration: StopDuration): number {
  return msToNumber(duration);
}
