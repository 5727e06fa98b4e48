/**
 * `agent-runner/workflow`: the workflow-safe entry. What a user's own workflow code imports — the agent's
 * workflows (to re-export from the worker's workflows module, or to run as a child with
 * `executeChild(agentWorkflow, { args: [input] })`), the signals, queries and updates of a run and of a
 * conversation, the search attribute keys, and the types of the input, result and events.
 *
 * Everything here loads only `@temporalio/workflow`, `@temporalio/common` and zod: nothing that touches Node
 * (no configuration, no file system, no client). `test/integration/child-agent.test.ts` bundles a workflow that
 * imports all of it with Temporal's bundler, which refuses Node built-ins.
 */

/* The workflows a worker registers. */
export { agentWorkflow } from './agent/agent-workflow';
export { conversationWorkflow } from './conversation/conversation-workflow';

/* Workflow-side extension points. */
export { registerStopCondition } from './rules/custom-stop-conditions';
export type { CustomStopCondition, StopContext, StopToolResult } from './rules/stop-conditions';
export { registerApprovalPolicy } from './rules/approval-policies';
export type { ApprovalPolicy, ApprovalPolicyCall, ApprovalPolicyDecision } from './rules/approval-policies';

/* Messages to a running agent and to a conversation. */
export {
  approveSignal,
  decideUpdate,
  denySignal,
  eventsQuery,
  setLimitsUpdate,
  stateQuery,
  stopSignal,
  terminateSignal,
  transcriptQuery,
  userMessageSignal,
} from '../workflow-contract/definitions';
export { chatUpdate, conversationQuery, endConversationSignal } from '../workflow-contract/conversation-definitions';

/* Search attributes the agent keeps current, for `wf.upsertSearchAttributes` readers and list queries. */
export {
  AGENT_SEARCH_ATTRIBUTE_KEYS,
  AgentCostUsdKey,
  AgentIterationsKey,
  AgentPendingApprovalsKey,
  AgentStatusKey,
  AgentTerminationReasonKey,
  AgentTotalTokensKey,
} from '../workflow-contract/search-attributes';

/* The workflow type names, for `executeChild('agentWorkflow', ...)` by name. */
export { WORKFLOW_TYPE } from '../shared/defaults/names';
export { CONVERSATION_WORKFLOW_TYPE } from '../shared/conversation';

/* Types only: what crosses the workflow's boundary. */
export type { AgentInput, ApprovalConfig, RestrictOutputConfig, TerminatingConfig } from '../shared/agent-input';
export type { AgentResult, AgentState, AgentStatus, GeneratedMessage, TerminationReason } from '../shared/agent-result';
/* What agentWorkflow returns carries a large final answer once; withAnswerRestored gives back the full result (pure). */
export { withAnswerRestored, type AgentWorkflowResult } from '../shared/result-answer';
export type { AssistantMessage, ChatMessage, MessageMeta, ToolCall, ToolMessage, Usage } from '../shared/messages';
export type { EventPage, RunEvent, RunEventOf, RunEventType } from '../shared/run-events';
export type { MessagePage, TranscriptQueryInput } from '../shared/transcript';
export type {
  ApprovalDecision,
  ApproveInput,
  DecideInput,
  DenyInput,
  EventsQueryInput,
  PendingApproval,
  RunLimits,
  SetLimitsInput,
  TerminateInput,
  TokenBudget,
} from '../shared/control';
export type { ChatTurnRequest, ChatTurnResult, ConversationInput, ConversationState } from '../shared/conversation';
