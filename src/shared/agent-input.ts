import { z } from 'zod';
import { builtOnce } from './built-once';
import {
  DEFAULT_CONSECUTIVE_NUDGES,
  DEFAULT_NUDGE_MESSAGE,
  DEFAULT_RESTRICTION_MESSAGE,
  INPUT_DEFAULTS,
  NESTED_AGENT_DEFAULTS,
} from './defaults/run-input';
import { INPUT_BOUNDS } from './defaults/input-bounds';
import { ENDPOINT_BOUNDS } from './defaults/model-endpoints';
import { RESULT_CACHE_DEFAULTS } from './defaults/context-control';
import { tokenBudgetSchema } from './control';
import { costBudgetSchema } from './prices';
import { durationSchema } from './duration';
import { stopConditionSchema } from './stop-conditions-schema';
import { compactionSchema } from './compaction-schema';
import { circuitBreakerSchema, loopDetectionSchema, maskingSchema, resultProcessingSchema } from './loop-guard-schemas';
import { findTooDeep } from './json-depth';
import { toolMatches } from './mcp-tool-names';
import { inputChatMessageSchema, type ChatMessage } from './messages';
import { outputSpecSchema } from './output-schema';
import { forkedFromSchema } from './fork';
import { CONTEXT_RELEASE_TOOL } from './defaults/context-control';
import { answerTruncationSchema, samplingSettingsSchema } from './sampling';

/** A tool's name as the input gives it. */
const toolName = builtOnce('agentInput.toolName', () => z.string().min(1).max(INPUT_BOUNDS.nameChars));

/**
 * Which tool calls need approval, who decides them (an approval policy, then a human), and what a missing
 * decision means.
 */
const approvalConfigSchema = builtOnce('agentInput.approvalConfig', () =>
  z
    .strictObject({
      /**
       * Tools whose calls need approval, or "all". Tools declaring `needsApproval` need it regardless.
       * @default [] without a `policy`; "all" with one (an approval policy sees every call)
       */
      tools: z.union([z.literal('all'), z.array(toolName).max(INPUT_BOUNDS.tools)]).optional(),
      /**
       * An approval policy registered in workflow code (`registerApprovalPolicy`) that decides the calls needing
       * approval before a human does: approve, deny, modify the arguments, or ask a human. @default none: a human decides
       */
      policy: toolName.optional(),
      /** What the policy receives as its second argument. Only with `policy`. @default {} */
      params: z.record(z.string(), z.unknown()).optional(),
      /** How long a call waits for a human decision, on a durable timer. @default no limit */
      timeout: durationSchema.optional(),
      /** What a timeout means: deny the call (the model hears it), or fail the run (`ApprovalTimedOut`). @default 'deny' */
      onTimeout: z.enum(['deny', 'fail']).default(INPUT_DEFAULTS.approval.onTimeout),
    })
    .refine((config) => config.params === undefined || config.policy !== undefined, {
      path: ['params'],
      message: 'params are for an approval policy; give `policy` too',
    })
    // The default of `tools` depends on `policy`, so it is applied here rather than on the field.
    .transform(({ tools, ...config }) => ({
      ...config,
      tools: tools ?? (config.policy === undefined ? [...INPUT_DEFAULTS.approval.tools] : ('all' as const)),
    })),
);
export type ApprovalConfig = z.infer<typeof approvalConfigSchema>;

/**
 * Terminating tools: the chat API's `terminating_config`, camel-cased. A run with this block is
 * autonomous: it ends when the model calls one of `toolIds`.
 */
const terminatingConfigSchema = builtOnce('agentInput.terminatingConfig', () =>
  z.strictObject({
    /** Tools whose call ends the run; their output becomes the response. */
    toolIds: z.array(toolName).min(1, 'give at least one tool id').max(INPUT_BOUNDS.tools),
    /** Content-only answers in a row that are answered with a nudge. @default 1 */
    consecutiveNudges: z.number().int().nonnegative().default(DEFAULT_CONSECUTIVE_NUDGES),
    /** The injected system message. @default {@link DEFAULT_NUDGE_MESSAGE} */
    nudgeMessage: z.string().min(1).max(INPUT_BOUNDS.shortTextChars).default(DEFAULT_NUDGE_MESSAGE),
    /**
     * Model calls allowed in the run; with the top-level `maxInvocations` too,
     * the smaller applies. @default 64
     */
    maxInvocations: z.number().int().positive().optional(),
  }),
);
export type TerminatingConfig = z.infer<typeof terminatingConfigSchema>;

/**
 * Restricted output: the model must call a tool before it may
 * finish. When the injections of a turn are spent, a text answer ends the run
 * normally (or, in an autonomous run, meets the nudge rule).
 */
const restrictOutputSchema = builtOnce('agentInput.restrictOutput', () =>
  z.strictObject({
    /** @default false */
    enabled: z.boolean().default(INPUT_DEFAULTS.restrictOutput.enabled),
    /** The injected system message. @default {@link DEFAULT_RESTRICTION_MESSAGE} */
    message: z.string().min(1).max(INPUT_BOUNDS.shortTextChars).default(DEFAULT_RESTRICTION_MESSAGE),
    /** Injections per turn; 0 means unlimited (bounded by the invocation cap). @default 0 */
    maxInjections: z.number().int().nonnegative().default(INPUT_DEFAULTS.restrictOutput.maxInjections),
  }),
);
export type RestrictOutputConfig = z.infer<typeof restrictOutputSchema>;

/** The one argument of `agentWorkflow`. */
export const agentInputSchema = builtOnce('agentInput.agentInput', () =>
  z
    .strictObject({
      /**
       * Model name sent to the provider, or `<endpoint>/<model>` (or `<endpoint>` alone) for one of the worker's named
       * endpoints (`AGENT_MODEL_ENDPOINTS`); a model an endpoint lists goes there. @default the worker's `OPENAI_MODEL`
       */
      model: z.string().min(1).max(INPUT_BOUNDS.modelChars).optional(),
      /**
       * Endpoints a model call moves to, in order, when one is unreachable, rate-limited or overloaded (connection
       * errors, timeouts, 429, 5xx), never after a bad request or a context overflow: `<endpoint>` (the same model,
       * or the endpoint's default) or `<endpoint>/<model>`. @default none
       */
      modelFallbacks: z
        .array(z.string().min(1).max(INPUT_BOUNDS.modelChars))
        .min(1)
        .max(ENDPOINT_BOUNDS.fallbacks)
        .optional(),
      /**
       * The agent's name, for people and traces: the run's span is `invoke_agent {name}` (`gen_ai.agent.name`).
       * A nested agent is named after its tool. @default 'agent'
       */
      name: z.string().min(1).max(INPUT_BOUNDS.nameChars).optional(),
      /** System prompt, sent first on every model call; not stored in `messages`. */
      instructions: z.string().max(INPUT_BOUNDS.textChars).optional(),
      /** Names of registered tools this run may use. */
      tools: z.array(toolName).max(INPUT_BOUNDS.tools),
      /** The human message appended to `messages`. */
      message: z.string().min(1).max(INPUT_BOUNDS.textChars).optional(),
      /** Prior conversation in OpenAI chat format. */
      messages: z.array(inputChatMessageSchema).max(INPUT_BOUNDS.messages).optional(),
      /**
       * Sampling settings of the run's model calls (`maxTokens`, `temperature`, `topP`, `seed`, `stop`, `toolChoice`),
       * over the worker's (`AGENT_MODEL_*`) field by field. Compaction and extraction calls use them too, but for
       * `toolChoice`; nested agents inherit them, but for `toolChoice`, unless their tool sets its own. @default the worker's
       */
      modelSettings: samplingSettingsSchema.optional(),
      /**
       * What a final text answer cut at the token cap (`finish_reason: "length"`) does: continued (the default, at
       * most twice), a failure (`AnswerTruncated`), or accepted with `truncated: true` in the result. A tool call
       * cut there never runs: the model hears it was cut. @default { action: 'continue', maxContinuations: 2 }
       */
      answerTruncation: answerTruncationSchema.optional(),
      /** Let the model ask for several tools at once and run them concurrently. @default true */
      parallelToolCalls: z.boolean().default(INPUT_DEFAULTS.parallelToolCalls),
      /** Model calls allowed in the run when `terminating` does not set its own. @default 64 */
      maxInvocations: z.number().int().positive().optional(),
      /**
       * Iterations one Temporal run takes before the run continues as new, carrying everything it counts; Temporal's
       * own suggestion (history past 4 MiB or 4,096 events) does the same. @default only when Temporal suggests it
       */
      iterationsPerRun: z.number().int().positive().optional(),
      /** Terminating tools: end the run on a terminating tool call. */
      terminating: terminatingConfigSchema.optional(),
      /**
       * Loop-breaking mode: every answer must call a tool. A text answer gets an error context and another model call,
       * counted like nudges (up to `circuitBreaker.threshold`, 5, in a row). @default false
       */
      requireToolCall: z.boolean().default(INPUT_DEFAULTS.requireToolCall),
      /** Restricted output: require a tool call before the model may finish. */
      restrictOutput: restrictOutputSchema.optional(),
      /** Approval of tool calls before they run: by a registered policy, by a human, or by a policy that asks a human. */
      approval: approvalConfigSchema.optional(),
      /** Token budgets; reaching one fails the run with `TokenBudgetExhausted`. */
      tokenBudget: tokenBudgetSchema.optional(),
      /** A cost budget in US dollars, priced by the worker's price table; reaching it fails the run with `CostBudgetExceeded`. */
      costBudget: costBudgetSchema.optional(),
      /**
       * Timeout: the wall-clock limit of the run, on a durable timer. When it fires,
       * in-flight calls are cancelled and the run ends gracefully (`timeout`).
       */
      timeout: durationSchema.optional(),
      /** How long `ask_question` waits for an answer before the run ends (`input_timeout`). @default no limit */
      inputTimeout: durationSchema.optional(),
      /** Stop conditions: a JSON condition tree; when it holds the run ends gracefully (`stop_condition`). */
      stopWhen: stopConditionSchema.optional(),
      /** Loop detection: consecutive identical tool calls. Off unless given. */
      loopDetection: loopDetectionSchema.optional(),
      /** Circuit breaker: identical consecutive tool errors end the run. @default { threshold: 5 } */
      circuitBreaker: circuitBreakerSchema.optional(),
      /** Tool-result processing: cut long tool results before the model sees them. */
      resultProcessing: resultProcessingSchema.optional(),
      /** Observation masking: replace old, large tool results in the model's context with placeholders. */
      masking: maskingSchema.optional(),
      /**
       * What the result's `messages` hold: `recent`, the whole conversation while it weighs at most 32 KiB and past
       * that the newest messages that fit (the result's `transcript` says where they start; the rest is read with
       * `GET /runs/:run_id/messages`); `all`, always the whole conversation. @default 'recent'
       */
      resultMessages: z.enum(['recent', 'all']).default(INPUT_DEFAULTS.resultMessages),
      /** Compaction: summarise older messages when what the model sees passes `maxTokens`. Off unless given. */
      compaction: compactionSchema.optional(),
      /**
       * Where this run sits in a tree of nested agents (`defineAgentTool`): 0 for a run a caller starts, one more for
       * each level below. The runner sets it when it starts a nested agent; a caller has no need to. @default 0
       */
      depth: z.number().int().nonnegative().optional(),
      /**
       * Levels of runs the tree may have: a run at `depth` may start a nested agent only when `depth + 1 < maxDepth`
       * (a deeper call gets a `MaxDepthExceeded` tool error). Nested agents inherit it. @default 3
       */
      maxDepth: z.number().int().positive().optional(),
      /**
       * Structured output: the run ends only with an answer that validates against `output.schema` (a JSON Schema),
       * given by the model through a tool (`output.name`, `final_answer`) or as JSON text (`output.mode:
       * 'response_format'`); the result carries it parsed as `output`. See the structured output guide. Off unless given.
       */
      output: outputSpecSchema.optional(),
      /**
       * Set by `forkRun` on a fork: the source run and the iteration its conversation was taken at. The fork's
       * iterations go on from that number; its usage, invocations and budgets count only its own. Off unless given.
       */
      forkedFrom: forkedFromSchema.optional(),
    })
    .superRefine((input, context) => {
      if (input.message === undefined && (input.messages === undefined || input.messages.length === 0)) {
        context.addIssue({
          code: 'custom',
          path: ['message'],
          message: 'give `message`, or a non-empty `messages` to continue a conversation',
        });
      }
      const seen = new Set<string>();
      const duplicate = input.tools.find((name) => {
        if (seen.has(name)) return true;
        seen.add(name);
        return false;
      });
      if (duplicate !== undefined) {
        context.addIssue({ code: 'custom', path: ['tools'], message: `tool "${duplicate}" is listed twice` });
      }
      input.terminating?.toolIds.forEach((toolId, index) => {
        if (!input.tools.some((pattern) => toolMatches(pattern, toolId))) {
          context.addIssue({
            code: 'custom',
            path: ['terminating', 'toolIds', index],
            message: `"${toolId}" is not one of this run's tools (${input.tools.join(', ') || 'none'}); add it to \`tools\``,
          });
        }
      });
      const approvalTools = input.approval?.tools;
      if (Array.isArray(approvalTools)) {
        approvalTools.forEach((toolName, index) => {
          if (!input.tools.some((pattern) => toolMatches(pattern, toolName))) {
            context.addIssue({
              code: 'custom',
              path: ['approval', 'tools', index],
              message: `"${toolName}" is not one of this run's tools (${input.tools.join(', ') || 'none'})`,
            });
          }
        });
      }
      if (
        input.resultProcessing?.inlineThreshold !== undefined &&
        input.tools.includes(RESULT_CACHE_DEFAULTS.toolName)
      ) {
        context.addIssue({
          code: 'custom',
          path: ['tools'],
          message: `"${RESULT_CACHE_DEFAULTS.toolName}" is the runner's own tool when resultProcessing.inlineThreshold is set; rename your tool or leave caching off`,
        });
      }
      const answerTool = input.output?.mode === 'tool' ? input.output.name : undefined;
      if (
        answerTool !== undefined &&
        (input.tools.includes(answerTool) ||
          answerTool === RESULT_CACHE_DEFAULTS.toolName ||
          answerTool === CONTEXT_RELEASE_TOOL)
      ) {
        context.addIssue({
          code: 'custom',
          path: ['output', 'name'],
          message: `"${answerTool}" is the tool the model answers with; it must not be one of the run's tools (or the runner's own), so give \`output.name\` another name`,
        });
      }
      if (input.modelSettings?.toolChoice === 'required' && input.tools.length === 0) {
        context.addIssue({
          code: 'custom',
          path: ['modelSettings', 'toolChoice'],
          message: '"required" needs at least one tool in `tools`',
        });
      }
      const tree = treePosition(input);
      if (tree.depth >= tree.maxDepth) {
        context.addIssue({
          code: 'custom',
          path: ['depth'],
          message: `depth ${tree.depth} is not below maxDepth ${tree.maxDepth}; a run must sit above the tree's deepest level (leave depth out: the runner sets it)`,
        });
      }
      const unanswered = findUnansweredToolCall(input.messages ?? []);
      if (unanswered !== undefined) {
        context.addIssue({
          code: 'custom',
          path: ['messages', unanswered.index],
          message: `tool call "${unanswered.callId}" has no tool message answering it; the provider would reject this conversation`,
        });
      }
    }),
);

/** Where a run sits in a tree of nested agents, its defaults applied: depth 0, `maxDepth` {@link NESTED_AGENT_DEFAULTS}. */
export function treePosition(input: { depth?: number | undefined; maxDepth?: number | undefined }): {
  depth: number;
  maxDepth: number;
} {
  return { depth: input.depth ?? 0, maxDepth: input.maxDepth ?? NESTED_AGENT_DEFAULTS.maxDepth };
}

/** What callers write (defaults optional). */
export type AgentInput = z.input<typeof agentInputSchema>;
/** What the workflow works with (defaults applied). */
export type ParsedAgentInput = z.output<typeof agentInputSchema>;

/**
 * Checks `input` and returns the parsed input or one line per problem (at most {@link INPUT_BOUNDS.problems}, each
 * cut to {@link INPUT_BOUNDS.problemChars}). Never throws, since a throw in a workflow retries its task forever:
 * nesting is measured first without recursion, and anything unforeseen becomes a problem.
 */
export function parseAgentInput(
  input: unknown,
): { ok: true; input: ParsedAgentInput } | { ok: false; problems: string[] } {
  try {
    const tooDeep = findTooDeep(input, INPUT_BOUNDS.depth);
    if (tooDeep !== undefined) {
      const field = formatPath(tooDeep.path.slice(0, 1));
      return {
        ok: false,
        problems: [
          cut(
            `${field}: nested more than ${INPUT_BOUNDS.depth} levels deep (at ${formatPath(tooDeep.path)}); an input may nest at most ${INPUT_BOUNDS.depth} levels of objects and arrays`,
          ),
        ],
      };
    }
    const parsed = agentInputSchema.safeParse(input);
    if (parsed.success) return { ok: true, input: parsed.data };
    return {
      ok: false,
      problems: listed(parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`)),
    };
  } catch (error) {
    return {
      ok: false,
      problems: [cut(`input: could not be checked (${error instanceof Error ? error.message : String(error)})`)],
    };
  }
}

/** The first problems, each cut short, and a count of the rest: a failure must fit in a Temporal payload. */
function listed(problems: readonly string[]): string[] {
  const shown = problems.slice(0, INPUT_BOUNDS.problems).map(cut);
  const more = problems.length - shown.length;
  return more > 0 ? [...shown, `... and ${more} more problem${more === 1 ? '' : 's'}`] : shown;
}

function cut(text: string): string {
  return text.length <= INPUT_BOUNDS.problemChars ? text : `${text.slice(0, INPUT_BOUNDS.problemChars - 1)}…`;
}

/** Longest object key a path shows; keys come from the caller and may be of any length. */
const PATH_KEY_CHARS = 64;

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'input';
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      const key = String(segment);
      return `${index === 0 ? '' : '.'}${key.length <= PATH_KEY_CHARS ? key : `${key.slice(0, PATH_KEY_CHARS)}…`}`;
    })
    .join('');
}

function findUnansweredToolCall(messages: ChatMessage[]): { index: number; callId: string } | undefined {
  const answered = new Set(messages.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : [])));
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    const missing = message.tool_calls?.find((call) => !answered.has(call.id));
    if (missing !== undefined) return { index, callId: missing.id };
  }
  return undefined;
}
