import { z } from 'zod';
import { agentResultSchema, agentStateSchema, generatedMessageSchema, type AgentState } from '../shared/agent-result';
import { approvalDecisionFields, tokenBudgetSchema, type ApprovalDecision } from '../shared/control';
import { chatMessageSchema } from '../shared/messages';
import { runEventSchema } from '../shared/run-events';
import { API_ERROR_CODES, API_ERROR_CODE_NAMES } from '../http/error-codes';

/**
 * What the routes answer, as zod schemas that type the answer builders and describe the OpenAPI document, so the two
 * cannot drift.
 */

/** `{ "error": { "code", "message", "details"? } }`, every error the API answers. */
export const errorResponse = z.object({
  error: z.object({
    // One literal per code, each with its meaning, so the document says what every code means once.
    code: z.union(
      API_ERROR_CODE_NAMES.map((code) =>
        z.literal(code).meta({ description: `${API_ERROR_CODES[code].status}: ${API_ERROR_CODES[code].meaning}` }),
      ),
    ),
    message: z.string(),
    details: z.unknown().optional().meta({
      description: 'invalid_body: `[{ field, problem }]`; a chat turn’s failure: `{ type, run_id?, problems? }`.',
    }),
  }),
});

/** `GET /healthz`. */
export const healthResponse = z.object({ ok: z.literal(true) });

/** `GET /readyz`. */
export const readyResponse = z.object({ status: z.literal('ready') });

/** The chat endpoints' answer (the chat response format); the run id and turn ride in the `agent-run-id` and `agent-turn` headers. */
export const chatResponse = z.object({
  response: z.string(),
  saved_ai_messages: z.boolean(),
  generated_messages: z.array(generatedMessageSchema),
});

/** `GET /conversations/:context_id`. */
export const conversationResponse = z.object({
  context_id: z.string(),
  turns: z.number().int(),
  ended: z.boolean(),
  active_turn: z
    .object({
      turn: z.number().int(),
      kind: z.enum(['chat', 'invoke', 'add-ai-message']),
      run_id: z.string(),
      started_at: z.string(),
    })
    .nullable(),
  messages: z.array(chatMessageSchema),
});

/** `DELETE /conversations/:context_id`. */
export const conversationEndingResponse = z.object({ context_id: z.string(), ending: z.literal(true) });

/** `POST /runs`. */
export const runStartedResponse = z.object({ run_id: z.string(), status_url: z.string(), events_url: z.string() });

/** One row of `GET /runs`, from the run's search attributes. */
export const runRowSchema = z.object({
  run_id: z.string(),
  temporal_status: z.string(),
  status: z.string().nullable(),
  iterations: z.number().int().nullable(),
  total_tokens: z.number().int().nullable(),
  cost_usd: z.number().nullable(),
  pending_approvals: z.number().int().nullable(),
  termination_reason: z.string().nullable(),
  start_time: z.string(),
  close_time: z.string().nullable(),
});

/** `GET /runs`. */
export const runListResponse = z.object({ runs: z.array(runRowSchema) });

/** A call waiting for a decision, in a run's state. */
const pendingApprovalSchema = z.object({
  callId: z.string(),
  toolName: z.string(),
  arguments: z.unknown(),
  requestedAt: z.string(),
  run: z.object({ workflowId: z.string(), toolName: z.string() }).optional(),
});

/** What the `state` query answers: the schema of the run's state and what the run adds to it. */
const runStateSchema = agentStateSchema.extend({
  pendingApprovals: z.array(pendingApprovalSchema),
  waitingFor: z.enum(['approval', 'input']).optional(),
  question: z
    .object({
      callId: z.string(),
      question: z.string(),
      askedAt: z.string(),
      server: z.string().optional(),
      elicitationId: z.string().optional(),
    })
    .optional(),
  nestedQuestions: z
    .array(
      z.object({
        workflowId: z.string(),
        callId: z.string(),
        elicitationId: z.string(),
        server: z.string(),
        question: z.string(),
        askedAt: z.string(),
      }),
    )
    .optional()
    .describe(
      "MCP servers' questions the run's nested agents wait on: answer each on its `workflowId` (`POST /runs/:run_id/answer` with its `elicitationId`).",
    ),
  limits: z.object({ maxInvocations: z.number().int(), tokenBudget: tokenBudgetSchema }),
  lastEvent: runEventSchema.optional(),
});

// The state the route answers is the state this schema describes: neither may change alone.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const stateMatches: Same<AgentState, z.output<typeof runStateSchema>> = true;
void stateMatches;

/** `GET /runs/:run_id`. */
export const runStateResponse = z.object({ run_id: z.string(), temporal_status: z.string(), state: runStateSchema });

/** How a run ended, in `GET /runs/:run_id/result` and the event stream's `end` event. */
const completed = z.object({ outcome: z.literal('completed'), result: agentResultSchema });
const terminated = z.object({
  outcome: z.literal('terminated'),
  reason: z.string(),
  result: agentResultSchema.optional(),
});
const failed = z.object({ outcome: z.literal('failed'), error: z.object({ type: z.string(), message: z.string() }) });
export const runOutcomeSchema = z.discriminatedUnion('outcome', [completed, terminated, failed]);

/** `GET /runs/:run_id/result` once the run has ended (200), or while it runs (202, `outcome: "running"`). */
export const runResultResponse = z.discriminatedUnion('outcome', [
  z.object({ run_id: z.string(), outcome: z.literal('running') }),
  completed.extend({ run_id: z.string() }),
  terminated.extend({ run_id: z.string() }),
  failed.extend({ run_id: z.string() }),
]);

/** `POST /runs/:run_id/approve` and `/deny`: the decision as the run recorded it. */
export const decisionResponse = z.object(approvalDecisionFields());

/** The answer to an MCP server's question, as the run recorded it. */
export const answerResponse = z.object({
  elicitationId: z.string(),
  callId: z.string(),
  action: z.enum(['accept', 'decline', 'cancel']),
});

const decisionMatches: Same<ApprovalDecision, z.output<typeof decisionResponse>> = true;
void decisionMatches;

/** `POST /runs/:run_id/fork`: the fork, started, and where it came from. */
export const forkStartedResponse = runStartedResponse.extend({
  forked_from: z.object({ run_id: z.string(), iteration: z.number().int() }),
});

/** `POST /runs/:run_id/terminate`. */
export const terminatingResponse = z.object({ run_id: z.string(), terminating: z.literal(true) });

/** `POST /runs/:run_id/stop`: the request was delivered; whether the run obeys it is its `stopWhen`'s to say. */
export const stopRequestedResponse = z.object({ run_id: z.string(), stop_requested: z.literal(true) });

/** `POST /runs/:run_id/messages`. */
export const messageDeliveredResponse = z.object({ run_id: z.string(), delivered: z.literal(true) });

/** `GET /runs/:run_id/messages`: a page of the transcript; `next_from` is where the next page starts, while there is one. */
export const messagePageResponse = z.object({
  run_id: z.string(),
  total: z.number().int(),
  from: z.number().int(),
  messages: z.array(chatMessageSchema),
  next_from: z.number().int().optional(),
});
