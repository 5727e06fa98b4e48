import { randomUUID } from 'node:crypto';
import { clientTracingInterceptor } from '../tracing/client-tracing';
import { tracingOn } from '../tracing/process-tracing';
import { Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { loadTemporalConfig, type TemporalConfig } from '../config';
import { loadClientTaskQueue } from '../config/temporal';
import { CLIENT_DEFAULTS } from '../shared/defaults/client';
import { MESSAGE_PAGES } from '../shared/defaults/sizes';
import { WORKFLOW_TYPE } from '../shared/defaults/names';
import { parseAgentInput, type AgentInput } from '../shared/agent-input';
import { stateQuery, transcriptQuery } from '../workflow-contract/definitions';
import { readClosedRun } from './closed-run-reader';
import { unlessNoWorker } from './worker-presence';
import { type AgentResult, type AgentState } from '../shared/agent-result';
import { type AgentWorkflowResult, withAnswerRestored } from '../shared/result-answer';
import { type ChatMessage } from '../shared/messages';
import { type OutputOf } from '../shared/typed-output';
import { type MessagePage, type TranscriptQueryInput, type TranscriptRun } from '../shared/transcript';
import { RunNotFoundError } from './run-control';
import { AgentOutputMissingError, AgentRunFailedError, InvalidAgentInputError } from './run-failures';
import { connectClient } from '../temporal/connection';
import { isWorkflowNotFound } from '../temporal/errors';
import { hasRunEnded } from '../temporal/run-ended';
import { failureOf } from '../temporal/failure-of';
import { versioningOverrideFor } from '../temporal/deployment-version';
import { VERSIONING_MEMO_KEY, type RunVersioning } from '../shared/versioning';

export { CONVERSATION_WORKFLOW_TYPE, conversationWorkflowId } from '../shared/conversation';
export {
  DEFAULT_NAMESPACE,
  DEFAULT_TASK_QUEUE,
  DEFAULT_TEMPORAL_ADDRESS,
  SCHEMA_VERSION,
  WORKFLOW_TYPE,
} from '../shared/defaults/names';
export {
  AGENT_SEARCH_ATTRIBUTE_KEYS,
  AgentIterationsKey,
  AgentPendingApprovalsKey,
  AgentStatusKey,
  AgentTerminationReasonKey,
  AgentTotalTokensKey,
  AgentCostUsdKey,
  AgentForkedFromKey,
} from '../workflow-contract/search-attributes';
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
// Structured output: a typed `output` from a zod schema, and the input's `output` as plain JSON.
export { outputSchema, type OutputOf, type OutputSchemaOptions, type OutputSpec } from '../shared/typed-output';
export type { OutputMode, OutputSpecInput } from '../shared/output-schema';
// The result, the live state and the event log.
export type { AgentResult, AgentState, AgentStatus, GeneratedMessage, TerminationReason } from '../shared/agent-result';
export type { AssistantMessage, ChatMessage, MessageMeta, ToolCall, ToolMessage, Usage } from '../shared/messages';
export type { EventPage, RunEvent } from '../shared/run-events';
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
export type { StreamTrust } from './model-stream-follower';
// Signals, queries and updates of `agentWorkflow`, and their arguments and answers.
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
export type { MessagePage, ResultTranscript, TranscriptQueryInput } from '../shared/transcript';
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
// Conversations: `conversationWorkflow`'s messages and their types.
export { chatUpdate, conversationQuery, endConversationSignal } from '../workflow-contract/conversation-definitions';
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
export { ConfigError, type TemporalConfig } from '../config';
export type { RemoteCodecConfig, TemporalConfigSource, TemporalTlsConfig } from '../config/temporal';
// A namespace needs the agent's search attributes: the helper that registers them, and the error when they are missing.
export { registerSearchAttributes, type OperatorConnection } from '../temporal/check-search-attributes';
export { SearchAttributesMissingError } from '../temporal/search-attributes-missing-error';
export { NoCurrentVersionError } from '../temporal/no-current-version-error';
export { currentDeploymentVersion } from '../temporal/deployment-version';
export type { RunVersioning } from '../shared/versioning';
// Payload encryption: the codec's data converter for this client and the workers, its keys, and its errors.
export { ENCODED_FAILURE_CONVERTER_PATH, payloadCodecDataConverter } from '../codec/data-converter';
export { AesGcmPayloadCodec, PayloadKeyError } from '../codec/aes-gcm-codec';
export { CodecKeyError, parseCodecKeys, readCodecKeyFile, type CodecKey } from '../codec/codec-keys';
export { loadCodecKeys } from '../config/payload-codec';

/** Options of {@link startAgentRun}. */
export interface StartAgentRunOptions {
  /**
   * The run's workflow id. A given id is never reused, also once its run has ended (Temporal's
   * REJECT_DUPLICATE), so starting twice with one id starts one run. @default `agent-<uuid>`
   */
  workflowId?: string;
  /** @default `AGENT_TASK_QUEUE`, else 'agent-runner' */
  taskQueue?: string;
  /**
   * How the run moves between builds of versioned workers (Worker Versioning, `docs/operations/deploys.md`):
   * `'pinned'` stays on the build current at its start, to its end (it throws {@link NoCurrentVersionError} when the
   * task queue has no current deployment version); `'auto-upgrade'` moves to the current build at its next workflow
   * task. `'pinned'` needs versioned workers; unversioned ones ignore `'auto-upgrade'`.
   * @default the workers' `AGENT_VERSIONING_DEFAULT` (`auto-upgrade` unless set)
   */
  versioning?: RunVersioning;
}

/** A started run. */
export interface AgentRun {
  /** The run's id: what every other call takes. */
  workflowId: string;
  /** Its first Temporal run; a long run continues as new under the same `workflowId` with later ones. */
  runId: string;
  handle: WorkflowHandle;
}

/** Options of {@link connectAgentClient}. */
export interface ConnectAgentClientOptions {
  /**
   * The client's data converter: the payload codec the workers encrypt with (`payloadCodecDataConverter(keys)`, or
   * one of your own), so the client writes inputs, signals and updates encrypted and reads results, queries and
   * events in clear. A run whose payloads name a key the client does not hold fails to read with a
   * `PayloadKeyError` naming the key id.
   * @default none: payloads in clear
   */
  dataConverter?: DataConverter;
  /**
   * Start runs under the caller's active OpenTelemetry span and carry the trace context into them (Temporal's
   * OpenTelemetry client interceptor), so a run's trace continues the caller's. Needs an OpenTelemetry tracer
   * provider registered in the process (the caller's own, or the runner's when `OTEL_*` tracing is on).
   * @default true when this process traces (`OTEL_EXPORTER_OTLP_ENDPOINT` set), else false
   */
  tracing?: boolean;
}

/** A client for the server in `TEMPORAL_ADDRESS` (or `config`). */
export async function connectAgentClient(
  config: TemporalConfig = loadTemporalConfig(),
  options: ConnectAgentClientOptions = {},
): Promise<Client> {
  const connection = await connectClient(config);
  const tracing = options.tracing ?? tracingOn();
  return new Client({
    connection,
    namespace: config.namespace,
    ...(options.dataConverter === undefined ? {} : { dataConverter: options.dataConverter }),
    ...(tracing ? { interceptors: { workflow: [clientTracingInterceptor()] } } : {}),
  });
}

/** Starts a run. The input is checked first, so a mistake throws here rather than failing a started run. */
export async function startAgentRun(
  client: Client,
  input: AgentInput,
  options: StartAgentRunOptions = {},
): Promise<AgentRun> {
  const parsed = parseAgentInput(input);
  if (!parsed.ok) throw new InvalidAgentInputError(parsed.problems);
  const workflowId = options.workflowId ?? `agent-${randomUUID()}`;
  const taskQueue = options.taskQueue ?? loadClientTaskQueue();
  const versioningOverride = await versioningOverrideFor(client, taskQueue, options.versioning);
  const handle = await client.workflow.start(WORKFLOW_TYPE, {
    taskQueue,
    workflowId,
    ...(versioningOverride === undefined ? {} : { versioningOverride }),
    // Read by the workflow, so that the choice holds across continue-as-new too (`src/workflows/agent/run-versioning.ts`).
    ...(options.versioning === undefined ? {} : { memo: { [VERSIONING_MEMO_KEY]: options.versioning } }),
    args: [input],
    // A caller's id names one run for good: reusing it must not quietly start a second one over the first.
    ...(options.workflowId === undefined ? {} : { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const }),
  });
  return { workflowId, runId: handle.firstExecutionRunId, handle };
}

/**
 * Waits for the run's result; a failed run throws {@link AgentRunFailedError}.
 * Follows continue-as-new, so the result is the run's last, from any of its Temporal runs.
 */
export async function getAgentResult(client: Client, workflowId: string, runId?: string): Promise<AgentResult> {
  try {
    return withAnswerRestored((await client.workflow.getHandle(workflowId, runId).result()) as AgentWorkflowResult);
  } catch (error) {
    if (error instanceof WorkflowFailedError) {
      const failure = failureOf(error);
      throw new AgentRunFailedError(failure.message, failure.type, failure.details, { cause: error });
    }
    throw error;
  }
}

/**
 * The run's state: the `state` query while it runs; once it has ended, read from its history (`readClosedRun`: its
 * result or failure, or its history replayed in this process for a run Temporal terminated or timed out), so no
 * action and no worker are needed; a failed run's `messages` are those its failure carries. A history that does not
 * replay against this process's workflow code is asked the query. Throws `RunNotFoundError` for an unknown id. Leave `runId` out to
 * read the run as it is now: a given `runId` reads that Temporal run only, which is closed once the run has
 * continued as new.
 */
export async function getAgentState(client: Client, workflowId: string, runId?: string): Promise<AgentState> {
  try {
    const handle = client.workflow.getHandle(workflowId, runId);
    if (hasRunEnded((await handle.describe()).status.name)) {
      const closed = await readClosedRun(client, workflowId, runId);
      if (closed !== undefined) return closed.state;
    }
    return await unlessNoWorker(client, workflowId, () => handle.query(stateQuery));
  } catch (error) {
    if (isWorkflowNotFound(error)) throw new RunNotFoundError(workflowId);
    throw error;
  }
}

/**
 * A page of the run's whole conversation (the `transcript` query): up to
 * `limit` messages (default 100, at most 1,000, and 1 MiB) from index `from`.
 * Answers during and after the run, also when its result carries only the
 * newest messages (`result.transcript`). Throws `RunNotFoundError` for an unknown id.
 */
export async function getAgentTranscript(
  client: Client,
  workflowId: string,
  page: TranscriptQueryInput = {},
): Promise<MessagePage> {
  try {
    const latest = await unlessNoWorker(client, workflowId, () =>
      client.workflow.getHandle(workflowId).query(transcriptQuery, page),
    );
    // Messages left behind by a hand-over are in the Temporal run that had them: follow the chain back.
    let answer = latest;
    for (let hops = 0; answer.earlierRunId !== undefined && hops < CLIENT_DEFAULTS.maxTranscriptHops; hops += 1) {
      answer = await client.workflow.getHandle(workflowId, answer.earlierRunId).query(transcriptQuery, page);
    }
    if (answer.earlierRunId !== undefined)
      throw new Error(
        `The transcript of ${workflowId} from message ${String(page.from ?? 0)} is more than ${CLIENT_DEFAULTS.maxTranscriptHops} Temporal runs back.`,
      );
    return { total: latest.total, from: answer.from, messages: answer.messages };
  } catch (error) {
    if (isWorkflowNotFound(error)) throw new RunNotFoundError(workflowId);
    throw error;
  }
}

/**
 * Every message of the run's conversation from `from`, read a page at a time.
 * Across a chain of Temporal runs it goes to the run that holds `from` (the
 * latest names it, with the runs before it), reads that run's pages, then
 * goes on to the run that holds the next message: a closed run answers a
 * query by replaying its history, so each is asked as few times as its pages
 * need. A hand-over from before runs were listed names only the previous
 * run; the walk back then takes one hop per run.
 */
export async function* readAgentTranscript(client: Client, workflowId: string, from = 0): AsyncGenerator<ChatMessage> {
  /** The earlier Temporal runs that hold messages left behind, oldest first, as the runs met so far listed them. */
  let runs: TranscriptRun[] = [];
  /** The Temporal run to ask next; `undefined` is the latest. */
  let target: string | undefined;
  let next = from;
  try {
    for (let hops = 0; ;) {
      const page = await client.workflow
        .getHandle(workflowId, target)
        .query(transcriptQuery, { from: next, limit: MESSAGE_PAGES.maxLimit });
      if (page.earlierRunId !== undefined) {
        hops += 1;
        if (hops > CLIENT_DEFAULTS.maxTranscriptHops)
          throw new Error(
            `The transcript of ${workflowId} from message ${next} is more than ${CLIENT_DEFAULTS.maxTranscriptHops} Temporal runs back.`,
          );
        if (page.runs !== undefined) runs = mergeRuns(runs, page.runs);
        target = page.earlierRunId;
        continue;
      }
      yield* page.messages;
      next = page.from + page.messages.length;
      // The latest run knows the whole transcript's length; an earlier one only where its own messages end.
      const exhausted = next >= page.total || page.messages.length === 0;
      if (target === undefined) {
        if (exhausted) return;
      } else if (exhausted) {
        // The listed run that holds the next message, if it is a later one; else the latest, which points on.
        const holder = runs.findLast((run) => run.from <= next);
        target = holder !== undefined && holder.runId !== target ? holder.runId : undefined;
      }
    }
  } catch (error) {
    if (isWorkflowNotFound(error)) throw new RunNotFoundError(workflowId);
    throw error;
  }
}

/** The runs two pages listed, as one list in transcript order (a run listed by both once). */
function mergeRuns(known: readonly TranscriptRun[], listed: readonly TranscriptRun[]): TranscriptRun[] {
  const byId = new Map([...known, ...listed].map((run) => [run.runId, run]));
  return [...byId.values()].sort((left, right) => left.from - right.from);
}

/**
 * What {@link runAgent} returns for `input`: the result, with `output` typed as the answer of the input's
 * {@link OutputSpec} (`outputSchema(zodSchema)`), and always there, when the input has one.
 */
export type AgentRunResult<Input extends AgentInput = AgentInput> = ([OutputOf<Input>] extends [never]
  ? AgentResult
  : Omit<AgentResult, 'output'> & { output: OutputOf<Input> }) & { workflowId: string; runId: string };

/**
 * Starts a run and waits for its result. With an output schema (`output: outputSchema(zodSchema)`) the result's
 * `output` is typed as the schema's output, and a run that ended without an answer throws
 * {@link AgentOutputMissingError}; a run that never gave a valid one fails (`AgentRunFailedError`, `Output.Invalid`).
 */
export async function runAgent<Input extends AgentInput>(
  client: Client,
  input: Input,
  options: StartAgentRunOptions = {},
): Promise<AgentRunResult<Input>> {
  const run = await startAgentRun(client, input, options);
  const result = {
    ...(await getAgentResult(client, run.workflowId, run.runId)),
    workflowId: run.workflowId,
    runId: run.runId,
  };
  if (input.output !== undefined && !('output' in result)) throw new AgentOutputMissingError(result);
  return result as AgentRunResult<Input>;
}

export {
  DecisionRejectedError,
  NoWorkerError,
  RunEndedError,
  RunNotFoundError,
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
export { InvalidListQueryError } from './visibility-query';
export { AgentOutputMissingError, AgentRunFailedError, InvalidAgentInputError } from './run-failures';
export {
  ChatTurnFailedError,
  endConversation,
  getConversation,
  sendChatTurn,
  type ChatTurnOptions,
} from './conversations';
// Forks: a new run from a run's conversation at an iteration, edited.
export { forkRun, type ForkEdit, type ForkInputChanges, type ForkRunOptions, type ForkedRun } from './fork-run';
export { ForkRefusedError, type ForkRefusal } from './fork-errors';
export type { ForkedFrom } from '../shared/fork';
