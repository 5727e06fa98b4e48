import { z } from 'zod';
import { builtOnce } from './built-once';
import type { NestedQuestion, PendingApproval, RunLimits } from './control';
import { chatMessageSchema, usageSchema } from './messages';
import { forkedFromSchema } from './fork';
import type { RunEvent } from './run-events';

/**
 * Why a run ended. One discriminated union across the runner: every way a run
 * can end gracefully has a `type` here (failures are `ApplicationFailure`s).
 */
export const terminationReasonSchema = builtOnce('agentResult.terminationReason', () =>
  z.discriminatedUnion('type', [
    /** The model answered with text and no tool calls. */
    z.object({ type: z.literal('complete') }),
    /** The model called a tool listed in `terminating.toolIds`. */
    z.object({ type: z.literal('terminating_tool'), toolName: z.string(), callId: z.string() }),
    /** A tool returned a `TerminateResponse`. */
    z.object({ type: z.literal('terminate_response'), toolName: z.string(), callId: z.string() }),
    /** `stopWhen` held after a model response or a tool batch. */
    z.object({ type: z.literal('stop_condition'), condition: z.string(), detail: z.string() }),
    /** Loop detection with action `stop`: the same call `count` times in a row. */
    z.object({ type: z.literal('loop_detected'), toolName: z.string(), count: z.number().int() }),
    /** The same tool failed with the same error `count` times in a row. */
    z.object({
      type: z.literal('circuit_breaker'),
      toolName: z.string(),
      errorText: z.string(),
      count: z.number().int(),
    }),
    /** `ask_question` waited longer than `inputTimeout` for an answer. */
    z.object({ type: z.literal('input_timeout'), question: z.string(), limit: z.string() }),
    /** The run's `timeout` passed; in-flight calls were cancelled. */
    z.object({ type: z.literal('timeout'), limit: z.string() }),
    /**
     * Stopped from outside: the `terminate` signal, Temporal's own cancel request, or (`temporal`, as its readers
     * report it) Temporal terminating or timing out the run without asking it.
     */
    z.object({
      type: z.literal('external'),
      reason: z.string().optional(),
      via: z.enum(['signal', 'cancel', 'temporal']),
    }),
  ]),
);
export type TerminationReason = z.infer<typeof terminationReasonSchema>;

/** The chat response format for the messages a run produced. */
export const generatedMessageSchema = builtOnce('agentResult.generatedMessage', () =>
  z.union([
    z.object({ sender: z.enum(['human', 'ai']), message: z.string() }),
    z.object({
      type: z.literal('tool_call'),
      tool_call_id: z.string(),
      tool_name: z.string(),
      tool_input: z.unknown(),
    }),
    z.object({ type: z.literal('tool_response'), tool_call_id: z.string(), tool_output: z.string() }),
  ]),
);
export type GeneratedMessage = z.infer<typeof generatedMessageSchema>;

/** The loop's counters, in the result and in the state. */
function countersShape() {
  return {
    /** Model calls made. */
    invocations: z.number().int(),
    /** Content-only answers in a row answered with a nudge; 0 after any tool call. */
    consecutiveNudges: z.number().int(),
    /** Restriction messages injected in the current turn; 0 after any tool call. */
    restrictionInjections: z.number().int(),
  };
}

/** One nested agent in its parent's result: its first Temporal run id, its tool name, its whole tree's usage. */
export const childUsageSchema = builtOnce('agentResult.childUsage', () =>
  z.object({ runId: z.string(), toolName: z.string(), usage: usageSchema }),
);
export type ChildUsage = z.infer<typeof childUsageSchema>;

/** What `agentWorkflow` returns. Exported for whoever documents or validates the shape. @public */
export const agentResultSchema = builtOnce('agentResult.agentResult', () =>
  z.object({
    schemaVersion: z.literal(1),
    /** The final text: the model's answer, or the terminating tool's output; with `output`, that value's JSON text. */
    response: z.string(),
    /**
     * Structured output: the answer, parsed and valid against the input's `output.schema`. Present when the run had
     * an output schema and the model ended it with an answer (`complete`, or a terminating tool whose output is a
     * valid answer); absent when a limit or a person stopped the run first (stop condition, timeout, terminate).
     */
    output: z.unknown().optional(),
    /** Structured output: answers that were not a valid final answer and went back to the model. */
    outputCorrections: z.number().int().optional(),
    /**
     * Set when `response` is an answer the token cap cut (`finish_reason: "length"`) and the run accepted it
     * (`answerTruncation.action: 'accept'`). An answer that was continued to its end is not cut.
     */
    truncated: z.literal(true).optional(),
    terminationReason: terminationReasonSchema,
    /** Loop iterations run (one model call each). */
    iterations: z.number().int(),
    ...countersShape(),
    /** Tokens of the whole tree: this run's model calls and those of every nested agent it started. */
    usage: usageSchema,
    /** Present once the run started a nested agent: the tokens of this run's own model calls. */
    ownUsage: usageSchema.optional(),
    /**
     * Present once the run started a nested agent: each one (its first Temporal run id, its tool name and its
     * tree's usage), in the order they ended; past 100, only `childrenOmitted` counts them (their usage is still in `usage`).
     */
    children: z.array(childUsageSchema).optional(),
    /** Nested agents not listed in `children`, when there were more than it holds. */
    childrenOmitted: z.number().int().optional(),
    /** The whole conversation: the input's `messages`, then everything this run added. */
    messages: z.array(chatMessageSchema),
    /** What this run added, in the chat response format (of the messages in `messages`, when `transcript` is set). */
    generatedMessages: z.array(generatedMessageSchema),
    /**
     * Set when `messages` holds only the newest messages (`resultMessages: 'recent'` and a conversation past
     * 32 KiB): they start at index `from` of `total`; the whole conversation is read in pages with the
     * `transcript` query (`GET /runs/:run_id/messages`, `agent-runner messages`).
     */
    transcript: z.object({ total: z.number().int(), from: z.number().int() }).optional(),
    /** Set on a fork (`forkRun`): its input's `forkedFrom`, with what it inherited from the source (`inherited`). */
    forkedFrom: forkedFromSchema.optional(),
  }),
);
export type AgentResult = z.infer<typeof agentResultSchema>;

export const agentStatusSchema = builtOnce('agentResult.agentStatus', () =>
  z.enum(['running', 'waiting_for_approval', 'waiting_for_input', 'completed', 'failed', 'terminated']),
);
export type AgentStatus = z.infer<typeof agentStatusSchema>;

/** What the `state` query answers, at any moment of a run. Exported for whoever documents or validates the shape. @public */
export const agentStateSchema = builtOnce('agentResult.agentState', () =>
  z.object({
    schemaVersion: z.literal(1),
    status: agentStatusSchema,
    /** The iteration in progress, or the last one run (0 before the first model call). */
    iteration: z.number().int(),
    ...countersShape(),
    /** The conversation as this Temporal run holds it: all of it, unless `transcript` says otherwise. */
    messages: z.array(chatMessageSchema),
    /**
     * Set once a continue-as-new left messages a compaction summarised behind: `messages` are the caller's first
     * `pinned` system messages (kept for the model), then the transcript from index `from` of `total`. The
     * whole transcript is read with the `transcript` query.
     */
    transcript: z.object({ total: z.number().int(), from: z.number().int(), pinned: z.number().int() }).optional(),
    usage: usageSchema,
    /** What the run is doing now, in a few words. */
    activity: z.string(),
    terminationReason: terminationReasonSchema.optional(),
    /** Set when `status` is `failed`. */
    error: z.object({ type: z.string(), message: z.string() }).optional(),
  }),
);

/** What the `state` query answers, at any moment of a run. */
export type AgentState = z.infer<typeof agentStateSchema> & {
  /** Calls waiting for a decision. */
  pendingApprovals: PendingApproval[];
  /** What the run waits for from outside, when it waits. */
  waitingFor?: 'approval' | 'input';
  /**
   * The question `ask_question` put to the user, or an MCP server's question during the call `callId` (`server`
   * names it), while the run waits for the answer.
   */
  /** `elicitationId` names an MCP server's question, answered with `answerElicitation`. */
  question?: { callId: string; question: string; askedAt: string; server?: string; elicitationId?: string };
  /**
   * MCP servers' questions its running nested agents wait on, each naming the run that waits (`workflowId`): answer
   * there, with its `elicitationId`. Absent when none waits.
   */
  nestedQuestions?: NestedQuestion[];
  /** The limits in force (`setLimits` changes them). */
  limits: RunLimits;
  /** The newest entry of the event log. */
  lastEvent?: RunEvent;
};
