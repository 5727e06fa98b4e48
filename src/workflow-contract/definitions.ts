import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AgentState } from '../shared/agent-result';
import type {
  ApprovalDecision,
  ApproveInput,
  DecideInput,
  DenyInput,
  EventsQueryInput,
  NestedApprovalsInput,
  RunLimits,
  SetLimitsInput,
  TerminateInput,
} from '../shared/control';
import type { McpElicitationAnswer, McpElicitationRequest } from '../shared/mcp-elicitation';
import type { McpSamplingUsage } from '../shared/mcp-sampling';
import type { AnswerElicitationInput, ElicitationAnswered } from '../shared/mcp-elicitation-answer';
import type { EventPage } from '../shared/run-events';
import type { MessagePage, ModelRequestQueryInput, TranscriptQueryInput } from '../shared/transcript';

/**
 * Names of the queries, signals and updates of `agentWorkflow`, shared by the
 * workflow, the client and the docs. One object argument each.
 */

/** Live state of a run. Usable at any moment, also after the run ended. */
export const stateQuery = defineQuery<AgentState>('state');
/** The run's event log from a cursor: `{ after?, limit? }`. */
export const eventsQuery = defineQuery<EventPage, [EventsQueryInput?]>('events');
/** The run's whole conversation, a page at a time: `{ from?, limit? }`. Also after the run ended. */
export const transcriptQuery = defineQuery<MessagePage, [TranscriptQueryInput?]>('transcript');
/**
 * The conversation a model call in flight sends, for the `callModel` activity
 * when it was too large for the activity's input (`ModelRequestReference`).
 * Internal to the runner.
 */
export const modelRequestQuery = defineQuery<MessagePage, [ModelRequestQueryInput]>('modelRequest');

/** A person's message: answers `ask_question`, or joins the conversation before the next model call. */
export const userMessageSignal = defineSignal<[{ content: string }]>('userMessage');
/** Approve a pending tool call, optionally with replacement arguments. */
export const approveSignal = defineSignal<[ApproveInput]>('approve');
/** Deny a pending tool call; the model hears `Denied: <reason>`. */
export const denySignal = defineSignal<[DenyInput]>('deny');
/**
 * Ask the run to stop at its next check (after the current model response or
 * tool batch), through a `stopWhen` that contains `{ external: true }`.
 * Nothing is cancelled. Without such a condition it is recorded and changes nothing.
 */
export const stopSignal = defineSignal<[{ reason?: string }?]>('stop');
/** Stop the run now, gracefully: in-flight calls are cancelled and the run returns. */
export const terminateSignal = defineSignal<[TerminateInput?]>('terminate');

/**
 * A nested agent's pending approvals, sent by its run to its parent each time they change, so the parent's
 * `state` lists them and a decision sent to the parent reaches the run that waits. Internal to the runner.
 */
export const nestedApprovalsSignal = defineSignal<[NestedApprovalsInput]>('nestedApprovals');

/**
 * An MCP server asks a person during a tool call (`elicitation/create`): sent by the worker that runs the call, so
 * the run waits for input and the next `userMessage` answers it. Internal to the runner.
 */
export const mcpElicitationSignal = defineSignal<[McpElicitationRequest]>('mcpElicitation');
/** The answer to an MCP server's question, polled by the worker that runs the call: `{ id }`. Internal to the runner. */
export const mcpElicitationAnswerQuery = defineQuery<McpElicitationAnswer, [{ id: string }]>('mcpElicitationAnswer');

/** The usage of an MCP server's sampling request during a call of the run, signalled by the worker. Internal to the runner. */
export const mcpSamplingSignal = defineSignal<[McpSamplingUsage]>('mcpSampling');

/**
 * Answer an MCP server's question: `accept` with the form's fields, `decline` or `cancel`, and who answered; refused
 * at once when no such question waits or the fields do not fit its form.
 */
export const answerElicitationUpdate = defineUpdate<ElicitationAnswered, [AnswerElicitationInput]>('answerElicitation');

/** Decide a pending call; rejected at once when unknown, already decided or malformed. */
export const decideUpdate = defineUpdate<ApprovalDecision, [DecideInput]>('decide');
/** Change `maxInvocations` or the token budget of a running run; answers the limits in force. */
export const setLimitsUpdate = defineUpdate<RunLimits, [SetLimitsInput]>('setLimits');
