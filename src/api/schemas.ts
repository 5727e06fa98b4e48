import { z } from 'zod';
import { RUN_VERSIONINGS } from '../shared/versioning';
import { API_DEFAULTS } from '../shared/defaults/api';
import { MESSAGE_PAGES } from '../shared/defaults/sizes';
import { agentInputSchema, type TerminatingConfig } from '../shared/agent-input';
import { agentStatusSchema } from '../shared/agent-result';
import { contextIdSchema, identifierSchema } from '../shared/conversation';

/**
 * Request bodies, as the chat endpoints specify them: snake_case, unknown fields
 * refused (a misspelt field would otherwise be silently ignored).
 */

/** `terminating_config`: the terminating tools of a chat turn. */
const terminatingConfigBody = z.strictObject({
  tool_ids: z.array(z.string().min(1)).min(1, 'give at least one tool id'),
  consecutive_nudges: z.number().int().nonnegative().optional(),
  nudge_message: z.string().min(1).optional(),
  max_invocations: z.number().int().positive().optional(),
});
export type TerminatingConfigBody = z.infer<typeof terminatingConfigBody>;

/**
 * Fields beyond the specified chat body that choose the agent of a turn; each falls back to
 * the server's configuration (`AGENT_TOOLS`, `AGENT_INSTRUCTIONS`, `OPENAI_MODEL`).
 */
const agentFields = {
  model: z.string().min(1).optional(),
  instructions: z.string().optional(),
  tools: z.array(z.string().min(1)).optional(),
};

/** Clients that send `null` for an absent config mean "none". */
const optionalTerminatingConfig = terminatingConfigBody.nullish();

/** `POST /chat`: a human message. */
export const chatBody = z.strictObject({
  context_id: contextIdSchema,
  message: z.string().trim().min(1, 'give the human message'),
  terminating_config: optionalTerminatingConfig,
  ...agentFields,
});

/** `POST /chat/invoke`: the agent runs on the conversation as it is. */
export const invokeBody = z.strictObject({
  context_id: contextIdSchema,
  terminating_config: optionalTerminatingConfig,
  ...agentFields,
});

/** `POST /chat/add-ai-message`: the agent adds a message, optionally steered by a prompt. */
export const addAiMessageBody = z.strictObject({
  context_id: contextIdSchema,
  prompt: z.string().trim().min(1).nullish(),
  terminating_config: optionalTerminatingConfig,
  ...agentFields,
});

/** The snake_case `terminating_config` as the run's `terminating` block. */
export function toTerminating(
  config: TerminatingConfigBody,
): Omit<TerminatingConfig, 'consecutiveNudges' | 'nudgeMessage'> &
  Partial<Pick<TerminatingConfig, 'consecutiveNudges' | 'nudgeMessage'>> {
  return {
    toolIds: config.tool_ids,
    ...(config.consecutive_nudges === undefined ? {} : { consecutiveNudges: config.consecutive_nudges }),
    ...(config.nudge_message === undefined ? {} : { nudgeMessage: config.nudge_message }),
    ...(config.max_invocations === undefined ? {} : { maxInvocations: config.max_invocations }),
  };
}

const runIdSchema = identifierSchema.refine(
  (id) => !id.startsWith('conversation:'),
  'ids beginning with "conversation:" belong to conversations and their turns',
);

/** `POST /runs`: the run's input exactly as the workflow takes it, and optionally its id and versioning behaviour. */
/**
 * `POST /runs`'s `input`: the workflow's input, checked after the API's default tools (`AGENT_TOOLS`) fill in a
 * missing `tools`; the OpenAPI document marks `tools` optional for that reason.
 */
export const startRunInputSchema = agentInputSchema.meta({
  description: "The workflow's input (docs/reference/run-input.md); `tools` left out is the API's `AGENT_TOOLS`.",
});

export const startRunBody = z.strictObject({
  input: startRunInputSchema,
  run_id: runIdSchema.optional(),
  versioning: z
    .enum(RUN_VERSIONINGS)
    .optional()
    .describe(
      "How the run moves between builds of versioned workers (docs/operations/deploys.md): `pinned` stays on the build current at its start, to its end (409 `no_current_version` when the task queue has none); `auto-upgrade` moves to the current build at its next workflow task. Unset: the workers' `AGENT_VERSIONING_DEFAULT`.",
    ),
});

/** `POST /runs/:run_id/fork`: where to fork the run, and what to change. */
export const forkRunBody = z.strictObject({
  at_iteration: z
    .number()
    .int()
    .describe("The fork takes the source's conversation as it stood when this iteration began (from 1)."),
  message: z.string().min(1).optional().describe('A user message appended to the conversation.'),
  tool_results: z
    .record(z.string().min(1), z.string())
    .optional()
    .describe("New results of tool calls made before the fork point, by the runner's call id (`call-3-1`)."),
  input: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "Fields of the source's input to change, as `POST /runs` names them (`instructions`, `tools`, `model`, `modelSettings`, `maxInvocations`, `output`, ...); `null` removes one. The edited input is checked as `POST /runs` checks one.",
    ),
  run_id: runIdSchema.optional().describe("The fork's id. Unset: a fresh one."),
});

/** `POST /runs/:run_id/approve`. */
export const approveBody = z.strictObject({
  call_id: z.string().min(1),
  /** Replacement arguments, checked against the tool's schema by the run. */
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/** `POST /runs/:run_id/deny`. */
export const denyBody = z.strictObject({
  call_id: z.string().min(1),
  reason: z.string().optional(),
});

/** `POST /runs/:run_id/answer`: an MCP server's question answered (the `answerElicitation` update). */
export const answerBody = z.strictObject({
  /** The question's id (the state's `question.elicitationId`); left out, the only waiting question. */
  elicitation_id: z.string().min(1).max(200).optional(),
  action: z.enum(['accept', 'decline', 'cancel']),
  /** With `accept`: the form's fields, checked against the server's requested schema by the run. */
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
});

/** `POST /runs/:run_id/terminate`. */
export const terminateBody = z.strictObject({ reason: z.string().optional() });

/** `POST /runs/:run_id/stop`. */
export const stopBody = z.strictObject({ reason: z.string().optional() });

/** `POST /runs/:run_id/messages`: a person's message (the `userMessage` signal). */
export const messageBody = z.strictObject({ content: z.string().trim().min(1, 'give the message') });

/** `GET /runs` query string. */
export const listRunsQuery = z.strictObject({
  status: agentStatusSchema.optional(),
  query: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(API_DEFAULTS.listLimitMax).optional(),
});

/** `GET /runs/:run_id/messages`: a page of the transcript. */
export const transcriptQueryString = z.strictObject({
  from: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().min(1).max(MESSAGE_PAGES.maxLimit).optional(),
});

/** `GET /runs/:run_id/events` query string (a `Last-Event-ID` header does the same). */
export const eventsQueryString = z.strictObject({
  after: z.coerce.number().int().nonnegative().optional(),
});

/** The path of the routes on one run: `/runs/:run_id/...`. */
export const runPathParams = z.strictObject({
  run_id: z.string().min(1).max(API_DEFAULTS.runIdChars).meta({ description: 'The run id (`run_id` of POST /runs).' }),
});

/** The path of the routes on one conversation: `/conversations/:context_id`. */
export const conversationPathParams = z.strictObject({ context_id: contextIdSchema });

/** `Idempotency-Key` of the chat endpoints: a retry with the same key answers the same turn. */
export const idempotencyKeyHeader = z.string().min(1).max(API_DEFAULTS.idempotencyKeyChars);

/** `Last-Event-ID` of `GET /runs/:run_id/events`: the `seq` of the last event received; the stream resumes after it. */
export const lastEventIdHeader = z.coerce.number().int().nonnegative();
