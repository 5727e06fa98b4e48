import { z } from 'zod';
import { builtOnce } from './built-once';
import { terminationReasonSchema } from './agent-result';
import { approvalDecisionFields, tokenBudgetSchema } from './control';
import { loopDetectionSchema } from './loop-guard-schemas';
import { usageSchema, type MessageMeta } from './messages';
import { forkedFromSchema } from './fork';

/**
 * The run's event log: one union member per event, named noun-first in kebab-case (`tool-call-start`). An event may
 * come from a worker of another version, so readers check it ({@link isRunEvent}) and show anything else generically.
 */

/** What every event has: its number, its time and its type. */
function envelope<Type extends string>(type: Type) {
  return {
    /** 1, 2, 3, ...: the cursor. */
    seq: z.number().int().min(1),
    /** Workflow time, ISO 8601. */
    at: z.string(),
    type: z.literal(type),
  };
}

/** A Temporal duration as the input gave it: milliseconds, or text such as "5m". */
const durationValue = builtOnce('runEvents.durationValue', () => z.union([z.number(), z.string()]));

/** The limits in force, as `setLimits` answers them. */
const limitsValue = builtOnce('runEvents.limitsValue', () =>
  z.object({ maxInvocations: z.number().int(), tokenBudget: tokenBudgetSchema }),
);

/** The counters an injected system message leaves behind. */
function injectionEvent<Type extends string>(type: Type) {
  return z.object({
    ...envelope(type),
    iteration: z.number().int(),
    consecutiveNudges: z.number().int(),
    restrictionInjections: z.number().int(),
  });
}

/**
 * What the whole run spent (its nested agents' too), as its result or failure details report it. Optional: older
 * runners' run-end events lack it.
 */
const runEndUsage = () => ({ usage: usageSchema.optional() });

/** The run ended: completed or terminated with a reason, or failed with an error. */
const runEndEventSchema = builtOnce('runEvents.runEndEvent', () =>
  z.discriminatedUnion('status', [
    z.object({
      ...envelope('run-end'),
      status: z.enum(['completed', 'terminated']),
      terminationReason: terminationReasonSchema,
      ...runEndUsage(),
    }),
    z.object({
      ...envelope('run-end'),
      status: z.literal('failed'),
      error: z.object({ type: z.string(), message: z.string() }),
      ...runEndUsage(),
    }),
  ]),
);

/** One entry of the run's event log, any type; in the order of a run. */
export const runEventSchema = builtOnce('runEvents.runEvent', () =>
  z.discriminatedUnion('type', [
    /** The run began (not a continued Temporal run: that is `run-take-over`, a public name that keeps the old word for continue-as-new). */
    z.object({
      ...envelope('run-start'),
      tools: z.array(z.string()),
      model: z.string().nullable(),
      /** Set on a fork: the run and iteration it was forked from. */
      forkedFrom: forkedFromSchema.optional(),
    }),
    /** A new Temporal run took the run over after a continue-as-new; `temporalRuns` counts this one. */
    z.object({ ...envelope('run-take-over'), iteration: z.number().int(), temporalRuns: z.number().int() }),
    /** An iteration began: the model is about to be called on `messages` messages. */
    z.object({ ...envelope('iteration-start'), iteration: z.number().int(), messages: z.number().int() }),
    /** Old, large tool results were replaced in the model's context by placeholders. */
    z.object({
      ...envelope('observation-masking'),
      iteration: z.number().int(),
      masked: z.array(
        z.object({ toolCallId: z.string(), toolName: z.string(), iteration: z.number().int(), tokens: z.number() }),
      ),
      tokensSaved: z.number(),
    }),
    /** The model released earlier iterations with `context_release`: masking hides their large tool results from now on. */
    z.object({
      ...envelope('context-release'),
      iteration: z.number().int(),
      callId: z.string(),
      /** Iterations this call released, ascending. */
      released: z.array(z.number().int()),
      /** Entries of the call that were ignored (not whole numbers, not earlier iterations, released already). */
      ignored: z.number().int(),
      /** Iterations the run has released in all. */
      totalReleased: z.number().int(),
    }),
    /**
     * Compaction: the model summarised the older messages before this iteration's model call; from now on it sees the
     * summary in their place (`run.messages` keeps them). Token counts are estimates of what the model sees.
     */
    z.object({
      ...envelope('compaction'),
      iteration: z.number().int(),
      /** The transcript index of the last message the summary stands for. */
      throughIndex: z.number().int(),
      /** Messages summarised for the first time; the previous summary, when there is one, was summarised again with them. */
      messagesSummarised: z.number().int(),
      tokensBefore: z.number(),
      tokensAfter: z.number(),
      /** The summary was longer than its share of `maxTokens` and was cut. */
      summaryCut: z.boolean(),
      /** The compaction call's tokens, counted in the run's usage and token budget. */
      usage: usageSchema,
      model: z.string(),
    }),
    /**
     * The model answered: `content` is cut to 500 characters; `text`, `finishReason` and `endpoint` are optional
     * because older workers' events differ; `usage.estimated` marks tokens counted before a failed attempt ended.
     */
    z.object({
      ...envelope('model-response'),
      iteration: z.number().int(),
      toolCalls: z.array(z.string()),
      content: z.string().optional(),
      usage: usageSchema,
      finishReason: z.string().nullable().optional(),
      truncated: z.literal(true).optional(),
      endpoint: z.string().optional(),
      fallbacks: z.array(z.object({ endpoint: z.string(), model: z.string(), type: z.string() })).optional(),
    }),
    /** Loop detection counted `count` identical calls of a tool in a row; `action` is what follows. */
    z.object({
      ...envelope('loop-detection'),
      iteration: z.number().int(),
      toolName: z.string(),
      count: z.number().int(),
      action: loopDetectionSchema.shape.action.unwrap(),
    }),
    /**
     * A tool call began, with the arguments it runs with (the approver's, when they changed them). Exactly one of:
     * `arguments`, the parsed JSON value (usually an object, as in `approval-request`), when the text the model sent
     * is valid JSON of at most 500 characters; `argumentsText`, that text as sent, cut to 500 characters, when it is
     * not valid JSON (the tool then answers the model with the error) or too long to log whole. See {@link loggedToolArguments}.
     */
    z.object({
      ...envelope('tool-call-start'),
      iteration: z.number().int(),
      callId: z.string(),
      toolName: z.string(),
      arguments: z.unknown().optional(),
      argumentsText: z.string().optional(),
    }),
    /** A tool call ended; `output` is its result, cut to 500 characters. */
    z.object({
      ...envelope('tool-call-end'),
      iteration: z.number().int(),
      callId: z.string(),
      toolName: z.string(),
      durationMs: z.number(),
      isError: z.boolean(),
      output: z.string(),
    }),
    /** A nested agent (`defineAgentTool`) started as a child workflow: its Temporal ids and the depth it runs at. */
    z.object({
      ...envelope('nested-agent-start'),
      iteration: z.number().int(),
      callId: z.string(),
      toolName: z.string(),
      workflowId: z.string(),
      runId: z.string(),
      depth: z.number().int(),
    }),
    /**
     * A nested agent ended: `completed` (with its termination reason's type), `failed` (with its failure), or
     * `cancelled` (this run stopped, and the child with it). `usage` is its whole tree's, counted in this run's.
     */
    z.object({
      ...envelope('nested-agent-end'),
      iteration: z.number().int(),
      callId: z.string(),
      toolName: z.string(),
      workflowId: z.string(),
      runId: z.string(),
      outcome: z.enum(['completed', 'failed', 'cancelled']),
      terminationReason: z.string().optional(),
      error: z.object({ type: z.string(), message: z.string() }).optional(),
      usage: usageSchema,
    }),
    /** A tool result longer than its limit was cut before the model saw it. */
    z.object({
      ...envelope('tool-result-truncation'),
      callId: z.string(),
      toolName: z.string(),
      originalChars: z.number().int(),
      keptChars: z.number().int(),
    }),
    /**
     * The extractor condensed a tool result (`resultProcessing.extractThreshold`): the model sees the condensed text.
     * Tokens are estimates (about four characters a token); `usage` is the extraction call's, counted in the run's.
     */
    z.object({
      ...envelope('tool-result-extraction'),
      iteration: z.number().int(),
      callId: z.string(),
      toolName: z.string(),
      originalChars: z.number().int(),
      extractedChars: z.number().int(),
      originalTokens: z.number().int(),
      extractedTokens: z.number().int(),
      /** The condensed text was longer than the extractor allows and was cut. */
      cut: z.boolean(),
      usage: usageSchema,
      model: z.string(),
    }),
    /**
     * The extractor could not condense a tool result: the call failed after its retries (`errorType` is its failure's
     * type) or its text was empty or no shorter. The result goes on unextracted; the run does not fail.
     */
    z.object({
      ...envelope('tool-result-extraction-failure'),
      iteration: z.number().int(),
      callId: z.string(),
      toolName: z.string(),
      reason: z.string(),
      errorType: z.string().optional(),
    }),
    /**
     * The cacher kept a tool result in the run's result cache (`resultProcessing.inlineThreshold`): the model sees a
     * summary with `ref` and reads the rest with `result_cache`. `dropped` are older entries given up to stay bounded.
     */
    z.object({
      ...envelope('tool-result-caching'),
      iteration: z.number().int(),
      callId: z.string(),
      toolName: z.string(),
      ref: z.string(),
      originalChars: z.number().int(),
      originalTokens: z.number().int(),
      summaryTokens: z.number().int(),
      dropped: z.array(z.string()),
    }),
    /** The circuit breaker tripped: a tool failed with the same error `count` times in a row. */
    z.object({
      ...envelope('circuit-breaker-trip'),
      iteration: z.number().int(),
      toolName: z.string(),
      errorText: z.string(),
      count: z.number().int(),
    }),
    /**
     * Structured output: an answer was not a valid final answer and went back to the model with its problems:
     * the answer tool's arguments (`answer_tool`), a text answer (`text`), or the output of a terminating tool that
     * ended the run (`tool_output`, `toolName` says which). `corrections` counts them in the run.
     */
    z.object({
      ...envelope('output-rejection'),
      iteration: z.number().int(),
      source: z.enum(['answer_tool', 'text', 'tool_output']),
      toolName: z.string().optional(),
      problems: z.array(z.string()),
      corrections: z.number().int(),
    }),
    /** A `stopWhen` condition held; the run ends. */
    z.object({ ...envelope('stop-condition-match'), condition: z.string(), detail: z.string() }),
    /** A nudge (the model answered without calling a terminating tool) was added to the conversation. */
    injectionEvent('nudge-injection'),
    /** A restriction (the model must call a tool before it may finish) was added to the conversation. */
    injectionEvent('restriction-injection'),
    /** A loop warning was added to the conversation. */
    injectionEvent('loop-warning-injection'),
    /** An error context (`requireToolCall`: the answer called no tool) was added to the conversation. */
    injectionEvent('error-context-injection'),
    /** The token cap cut the model's final answer, and the run asked it to continue (`answerTruncation`). */
    injectionEvent('continuation-injection'),
    /** A tool call waits for a decision; `policy` and its `reason` when an approval policy asked a person to decide. */
    z.object({
      ...envelope('approval-request'),
      callId: z.string(),
      toolName: z.string(),
      arguments: z.unknown(),
      policy: z.string().optional(),
      reason: z.string().optional(),
    }),
    /** A decision was recorded (`ApprovalDecision`). */
    z.object({
      ...envelope('approval-decision'),
      ...approvalDecisionFields(),
    }),
    /** A decision on a call a nested agent waits on was forwarded to that agent's run (`workflowId`), which records it. */
    z.object({
      ...envelope('nested-approval-forward'),
      callId: z.string(),
      workflowId: z.string(),
      decision: z.enum(['approve', 'deny']),
    }),
    /** A decision sent by signal was refused; `input` is what came, as JSON cut to 500 characters. */
    z.object({ ...envelope('decision-rejection'), via: z.literal('signal'), problem: z.string(), input: z.string() }),
    /** A call still waiting for a decision when the run stopped. */
    z.object({ ...envelope('approval-abandonment'), callId: z.string(), toolName: z.string() }),
    /**
     * `ask_question` asked the user, or an MCP server asked during the call `callId` (`server`, with its
     * `elicitationId` and `requestedSchema` as JSON text, when short enough); the run waits for the `userMessage`
     * signal, or for an MCP server's question the `answerElicitation` update.
     */
    z.object({
      ...envelope('input-request'),
      callId: z.string(),
      question: z.string(),
      server: z.string().optional(),
      elicitationId: z.string().optional(),
      requestedSchema: z.string().optional(),
    }),
    /**
     * An MCP server's question ended: `answered` (by the `answerElicitation` update, with its `action` and `by`; in
     * runs started before it, by a `userMessage` the worker mapped onto the server's schema), `abandoned` (the call
     * ended first: finished, timed out, or the run stopped) or `replaced` (a retried attempt of the call asked again).
     */
    z.object({
      ...envelope('mcp-elicitation-end'),
      callId: z.string(),
      elicitationId: z.string(),
      outcome: z.enum(['answered', 'abandoned', 'replaced']),
      action: z.enum(['accept', 'decline', 'cancel']).optional(),
      by: z
        .object({ name: z.string().optional(), via: z.enum(['api', 'cli', 'client', 'update']) })
        .describe(
          "Who answered: `via` the surface, or `update` for a sender that named none; `name` the principal, user or client's name.",
        )
        .optional(),
    }),
    /**
     * An MCP server sampled the worker's model during the call `callId` (`sampling/createMessage`): its tokens
     * (and cost) are in the run's usage and count against its budgets.
     */
    z.object({
      ...envelope('mcp-sampling'),
      callId: z.string(),
      server: z.string(),
      model: z.string(),
      usage: usageSchema,
    }),
    /** No answer came within `inputTimeout`. */
    z.object({ ...envelope('input-timeout'), callId: z.string(), limit: durationValue }),
    /** A person's message arrived (signal `userMessage`). */
    z.object({ ...envelope('user-message'), content: z.string() }),
    /** A person's message was refused: empty, or the run had ended. */
    z.object({ ...envelope('user-message-rejection'), reason: z.string() }),
    /** The `stop` signal arrived: `{ external: true }` stop conditions hold from now on. */
    z.object({ ...envelope('stop-request'), reason: z.string().nullable() }),
    /** The `terminate` signal arrived: the run stops now. */
    z.object({ ...envelope('terminate-request'), reason: z.string().nullable() }),
    /** `setLimits` changed the limits. */
    z.object({ ...envelope('limits-change'), before: limitsValue, after: limitsValue }),
    /** The run's `timeout` passed: the run stops. */
    z.object({ ...envelope('run-timeout'), limit: durationValue }),
    /** The run continues as new (`run-hand-over` is a public name that keeps the old word); `run-take-over` follows there. */
    z.object({ ...envelope('run-hand-over'), iteration: z.number().int(), historyBytes: z.number().int() }),
    runEndEventSchema,
  ]),
);

/** One entry of the run's event log. */
export type RunEvent = z.infer<typeof runEventSchema>;
/** The name of an event: `tool-call-start`, `run-end`, ... */
export type RunEventType = RunEvent['type'];
/** The event (or events: `run-end`) of type `Type`. */
export type RunEventOf<Type extends RunEventType> = Extract<RunEvent, { type: Type }>;
/** What an event of type `Type` carries besides `seq`, `at` and `type`: what `EventLog.append` takes. */
export type RunEventDetails<Type extends RunEventType> =
  RunEventOf<Type> extends infer Event ? (Event extends RunEvent ? Omit<Event, 'seq' | 'at' | 'type'> : never) : never;

/**
 * An event as a reader may receive it from a worker of another version: a
 * type, or fields, this version does not know. Every {@link RunEvent} is one.
 */
export interface UnknownRunEvent {
  seq: number;
  at: string;
  type: string;
  [detail: string]: unknown;
}

/**
 * A page of the event log; pass `nextCursor` as `after` to read on, and check events with {@link isRunEvent}, since
 * another version's worker may answer others.
 */
export interface EventPage {
  events: RunEvent[];
  nextCursor: number;
  /**
   * Events after the cursor that are no longer kept, before the first one
   * returned: a run that continued as new carries only its newest events.
   * Present only when some are missing.
   */
  missed?: number;
}

/** What a run injects into its conversation (`meta.injected` of a system message). */
export type InjectionKind = NonNullable<MessageMeta['injected']>;

/**
 * The event an injection is logged as. `meta.injected` keeps its values: it
 * is part of the conversation and the result, not of the event log.
 */
export const INJECTION_EVENT_TYPES = {
  nudge: 'nudge-injection',
  restriction: 'restriction-injection',
  loop_warning: 'loop-warning-injection',
  error_context: 'error-context-injection',
  continuation: 'continuation-injection',
} as const satisfies Record<InjectionKind, RunEventType>;

/**
 * A tool call's arguments as `tool-call-start` logs them (see the event): the parsed value when `text` is valid JSON
 * of at most `limit` characters, else the text cut by `cut`. Pure, so the workflow and readers of old events agree.
 */
export function loggedToolArguments(
  text: string,
  limit: number,
  cut: (text: string) => string,
): { arguments: unknown } | { argumentsText: string } {
  if (text.length <= limit) {
    try {
      return { arguments: JSON.parse(text) as unknown };
    } catch {
      // Invalid JSON from the model: logged as it came.
    }
  }
  return { argumentsText: cut(text) };
}

/** Whether `value` is an event this version writes, with the fields it writes; extra fields are allowed. */
export function isRunEvent(value: unknown): value is RunEvent {
  return runEventSchema.safeParse(value).success;
}
