/*
 * `agent-runner`: what a backend service imports to start, read and steer runs. Each group below is a row of
 * docs/guide/package.md's table for this entry (test/unit/package-entries.test.ts).
 */

// Connecting, starting a run, and reading its result, state and transcript.
export { connectAgentClient, type ConnectAgentClientOptions } from './connect-agent-client';
export { startAgentRun, type AgentRun, type StartAgentRunOptions } from './start-agent-run';
export { runAgent, type AgentRunResult } from './run-agent';
export { getAgentResult } from './agent-result';
export { getAgentState } from './agent-state';
export { getAgentTranscript, readAgentTranscript } from './agent-transcript';

// Steering, following and listing runs.
export {
  answerElicitation,
  decideToolCall,
  followRunEvents,
  getRunOutcome,
  listAgentRuns,
  sendUserMessage,
  stopAgentRun,
  terminateAgentRun,
  type FollowOptions,
  type ListRunsOptions,
  type RunOutcome,
  type RunSummary,
} from './run-control';
export type { StreamTrust } from './model-stream-follower';

// Conversations: one `conversationWorkflow` per `context_id`, a chat turn at a time.
export { endConversation, getConversation, sendChatTurn, type ChatTurnOptions } from './conversations';
export { CONVERSATION_WORKFLOW_TYPE, conversationWorkflowId } from '../shared/conversation';
export type {
  ActiveTurn,
  ChatTurnKind,
  ChatTurnRequest,
  ChatTurnResult,
  ConversationInput,
  ConversationState,
  RememberedTurn,
  TurnSettings,
} from '../shared/conversation';

// Forks: a new run from a run's conversation at an iteration, edited.
export { forkRun, type ForkEdit, type ForkInputChanges, type ForkRunOptions, type ForkedRun } from './fork-run';
export type { ForkedFrom } from '../shared/fork';

// The input, and the check `startAgentRun` applies to it.
export { parseAgentInput } from '../shared/agent-input';
export type { AgentInput, ApprovalConfig, RestrictOutputConfig, TerminatingConfig } from '../shared/agent-input';
export type {
  CircuitBreakerConfig,
  LoopAction,
  LoopDetectionConfig,
  MaskingConfig,
  ResultProcessingConfig,
} from '../shared/loop-guard-schemas';
export type { StopCondition, StopDuration } from '../shared/stop-conditions-schema';
export type { RunVersioning } from '../shared/versioning';

// Structured output: a typed `output` from a zod schema, and the input's `output` as plain JSON.
export { outputSchema, type OutputOf, type OutputSchemaOptions, type OutputSpec } from '../shared/typed-output';
export type { OutputMode, OutputSpecInput } from '../shared/output-schema';

// The result, the live state and the event log.
export type { AgentResult, AgentState, AgentStatus, GeneratedMessage, TerminationReason } from '../shared/agent-result';
export type { AssistantMessage, ChatMessage, MessageMeta, ToolCall, ToolMessage, Usage } from '../shared/messages';
export type { EventPage, RunEvent } from '../shared/run-events';
export type { MessagePage, ResultTranscript, TranscriptQueryInput } from '../shared/transcript';
export type { AnswerElicitationInput, ElicitationAnswered } from '../shared/mcp-elicitation-answer';

// What `followRunEvents(..., { deltas: true })` yields besides run events: the model's answer as it is generated.
export { isModelStreamEvent, MODEL_STREAM_EVENT_TYPES } from '../shared/model-stream-events';
export type {
  ModelDeltaResetEvent,
  ModelReasoningDeltaEvent,
  ModelStreamEvent,
  ModelStreamSource,
  ModelTextDeltaEvent,
  ModelStreamUnreachableEvent,
  ModelToolCallDeltaEvent,
} from '../shared/model-stream-events';

// Signals, queries and updates of `agentWorkflow` and `conversationWorkflow`, and their arguments and answers.
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

// Errors the client's calls throw, each with `isInstance`, all under `AgentRunnerError`.
export { AgentRunnerError } from '../shared/agent-runner-error';
export { AgentOutputMissingError } from './agent-output-missing-error';
export { AgentRunFailedError } from './agent-run-failed-error';
export { InvalidAgentInputError } from './invalid-agent-input-error';
export { DecisionRejectedError } from './decision-rejected-error';
export { NoWorkerError } from './no-worker-error';
export { RunEndedError } from './run-ended-error';
export { RunNotFoundError } from './run-not-found-error';
export { InvalidListQueryError } from './invalid-list-query-error';
export { ChatTurnFailedError } from './chat-turn-failed-error';
export { ForkRefusedError } from './fork-refused-error';
export type { ForkRefusal } from './fork-refusal';
export { NoCurrentVersionError } from '../temporal/no-current-version-error';

// Failures: the catalogue of every type the runner raises, what a failed run's details carry
// (`AgentRunFailedError.details[0]`), and the types a chat turn is refused with.
export {
  FAILURE_CATALOGUE,
  FailureType,
  isFailureType,
  type FailureEntry,
  type FailureTypeName,
} from '../shared/failure-catalogue';
export type { PartialRun } from '../shared/failure-catalogue';
export { ConversationFailure } from '../shared/conversation';

// The connection's settings, and the names and defaults it falls back on.
export { ConfigError, type TemporalConfig } from '../config';
export type { RemoteCodecConfig, TemporalConfigSource, TemporalTlsConfig } from '../config/temporal';
export {
  DEFAULT_NAMESPACE,
  DEFAULT_TASK_QUEUE,
  DEFAULT_TEMPORAL_ADDRESS,
  SCHEMA_VERSION,
  WORKFLOW_TYPE,
} from '../shared/defaults/names';

// Search attributes: their keys, the helper that registers them on a namespace, and the error when they are missing.
export {
  AGENT_SEARCH_ATTRIBUTE_KEYS,
  AgentCostUsdKey,
  AgentForkedFromKey,
  AgentIterationsKey,
  AgentPendingApprovalsKey,
  AgentStatusKey,
  AgentTerminationReasonKey,
  AgentTotalTokensKey,
} from '../workflow-contract/search-attributes';
export { registerSearchAttributes, type OperatorConnection } from '../temporal/check-search-attributes';
export { SearchAttributesMissingError } from '../temporal/search-attributes-missing-error';

// Payload encryption: the codec's data converter for this client and the workers, its keys, and its errors.
export { ENCODED_FAILURE_CONVERTER_PATH, payloadCodecDataConverter } from '../codec/data-converter';
export { AesGcmPayloadCodec } from '../codec/aes-gcm-codec';
export { PayloadKeyError } from '../codec/payload-key-error';
export { parseCodecKeys, type CodecKey } from '../codec/codec-keys';
export { CodecKeyError } from '../codec/codec-key-error';
export { loadCodecKeys } from '../config/payload-codec';
