import type { SearchAttributeUpdatePair } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import {
  AgentCostUsdKey,
  AgentIterationsKey,
  AgentPendingApprovalsKey,
  AgentStatusKey,
  AgentTerminationReasonKey,
  AgentTotalTokensKey,
} from '../../workflow-contract/search-attributes';
import { FailureType } from '../../shared/failure-catalogue';
import { SCHEMA_VERSION } from '../../shared/defaults/names';
import { ZERO_USAGE, type AssistantMessage, type ChatMessage, type ToolCall, type Usage } from '../../shared/messages';
import { type AgentState, type TerminationReason } from '../../shared/agent-result';
import { type ApprovalDecision, type PendingApproval, type RunLimits } from '../../shared/control';
import { type ToolCallResult } from '../../shared/activity-types';
import type { McpElicitResult } from '../../shared/mcp-elicitation';
import { initialBreakerState, type BreakerState } from '../rules/circuit-breaker';
import { EventLog } from './event-log';
import { initialLoopTracker, type LoopTracker } from '../rules/loop-detection';
import type { ConversationCompaction } from '../rules/model-context';
import type { ResultCache } from '../rules/result-cache';
import { transcriptTotal, type TranscriptSegment } from '../rules/transcript-segment';
import { treeUsage, type AgentAnswer, type NestedUsage } from '../rules/nested-agents';
import { listedNestedApprovals, type NestedRun } from '../rules/nested-approvals';
import { listedNestedQuestions } from '../rules/nested-questions';
import { isMeaningfulChange, type SearchAttributeValues } from '../rules/search-attribute-updates';
import type { StopToolResult } from '../rules/stop-conditions';

/** The batch of tool calls being executed, kept so a stop can close it with valid tool messages. */
interface OpenBatch {
  assistantIndex: number;
  calls: ToolCall[];
  results: Map<string, ToolCallResult>;
}

/** An MCP server's question the run waits to have answered (`steps/mcp-elicitations.ts`). */
export interface PendingElicitation {
  id: string;
  callId: string;
  server: string;
  question: string;
  askedAt: string;
  /** The server's requested schema as JSON text, when short enough to keep: an `accept`'s content is checked against it. */
  requestedSchema?: string;
}

/** Everything a run keeps; `snapshot` turns it into the plain JSON of the `state` query. */
export interface RunRecord {
  status: AgentState['status'];
  iteration: number;
  invocations: number;
  consecutiveNudges: number;
  restrictionInjections: number;
  /** Structured output: answers that were not a valid final answer and went back to the model; absent before the first. */
  outputCorrections?: number;
  messages: ChatMessage[];
  /** How many of `messages` came with the run's input; what follows is what the run added. */
  inputMessageCount: number;
  /** The summary the model sees in place of the older messages (`compaction` input); `messages` stay whole. */
  compaction?: ConversationCompaction;
  /** Tokens of this run's own model calls; its nested agents' are in `nested`. */
  usage: Usage;
  /** The nested agents this run started, once it started one (`rules/nested-agents.ts`). */
  nested?: NestedUsage;
  activity: string;
  limits: RunLimits;
  pendingApprovals: PendingApproval[];
  /** Nested agents running now, by workflow id, with what they wait on; never carried by continue-as-new (nothing runs between iterations). */
  nestedRuns: Map<string, NestedRun>;
  decisions: Map<string, ApprovalDecision>;
  events: EventLog;
  loopTracker: LoopTracker;
  breaker: BreakerState;
  openBatch?: OpenBatch;
  stopRequest?: { kind: 'signal' | 'timeout'; reason?: string };
  /** User messages that arrived by signal and are not yet in the conversation. */
  inbox: string[];
  /** The question `ask_question` asked, while the run waits for its answer. */
  pendingQuestion?: { callId: string; question: string; askedAt: string };
  /** MCP servers' questions during tool calls in flight, oldest first, each answered by `answerElicitation`. */
  elicitations: PendingElicitation[];
  /**
   * Answers to MCP servers' questions by elicitation id, until the worker reads them; kept per Temporal run
   * (never carried by continue-as-new: a call never outlives its batch), so a retried attempt that asks again gets the answer.
   */
  elicitationAnswers: Map<string, { question: string; answer: string; result?: McpElicitResult }>;
  /**
   * The conversation the model call in flight sends, when it is too large for
   * the activity's input: the `modelRequest` query answers it. Never handed
   * over: a run continues as new only between iterations.
   */
  modelRequest?: { iteration: number; messages: ChatMessage[] };
  /** The `stop` signal arrived: `{ external: true }` conditions hold from now on. */
  externalStopRequested: boolean;
  /** Where the current turn began: stop conditions count from here (their state resets each turn). */
  turn: {
    startedAtMs: number;
    messageIndex: number;
    iteration: number;
    usage: Usage;
    executedTools: string[];
    /** Messages the turn produced that a continue-as-new left behind (see `transcript-segment.ts`); counted by `maxMessages`. */
    leftBehind?: number;
    /** Nested agents that answered this turn, for `sourceMatch` and `stopMessage`; absent until one does. */
    agentAnswers?: AgentAnswer[];
  };
  /** Tool calls executed so far, across turns: a custom stop condition's `toolCallsExecuted`. */
  toolCallsExecuted: number;
  /** The latest batch's results, as stop conditions see them (`lastToolResults`). */
  lastToolResults: StopToolResult[];
  /** Iterations the model released with `context_release`, sorted: masking hides their tool results whatever their age. */
  releasedIterations: number[];
  /** Tool results kept out of the conversation (`resultProcessing.inlineThreshold`), read with `result_cache`; absent until one is. */
  resultCache?: ResultCache;
  /** Where `messages` sit in the whole transcript, once a continue-as-new left summarised messages behind; absent while it holds them all. */
  segment?: TranscriptSegment;
  terminationReason?: TerminationReason;
  error?: { type: string; message: string };
}

export function createRunRecord(): RunRecord {
  return {
    status: 'running',
    iteration: 0,
    invocations: 0,
    consecutiveNudges: 0,
    restrictionInjections: 0,
    messages: [],
    inputMessageCount: 0,
    usage: ZERO_USAGE,
    activity: 'validating input',
    limits: { maxInvocations: 0, tokenBudget: {} },
    pendingApprovals: [],
    nestedRuns: new Map(),
    decisions: new Map(),
    events: new EventLog(),
    externalStopRequested: false,
    inbox: [],
    elicitations: [],
    elicitationAnswers: new Map(),
    turn: { startedAtMs: new Date().getTime(), messageIndex: 0, iteration: 0, usage: ZERO_USAGE, executedTools: [] },
    loopTracker: initialLoopTracker(),
    breaker: initialBreakerState(),
    toolCallsExecuted: 0,
    lastToolResults: [],
    releasedIterations: [],
  };
}

/** What the run has spent: its own model calls and its nested agents' trees. */
export function runUsage(run: Pick<RunRecord, 'usage' | 'nested'>): Usage {
  return treeUsage(run.usage, run.nested);
}

export function isFinished(run: RunRecord): boolean {
  return run.status === 'completed' || run.status === 'failed' || run.status === 'terminated';
}

/** Says what the run is doing now: in the state and in the web UI's current details. */
export function describeActivity(run: RunRecord, activity: string): void {
  run.activity = activity;
  wf.setCurrentDetails(activity.charAt(0).toUpperCase() + activity.slice(1));
}

/** The run's search attributes as plain values. */
function searchAttributeValues(run: RunRecord): SearchAttributeValues {
  const usage = runUsage(run);
  return {
    status: run.status,
    iterations: run.iteration,
    totalTokens: usage.totalTokens,
    ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
    pendingApprovals: run.pendingApprovals.length,
    terminationReason:
      run.terminationReason?.type ??
      (run.status === 'failed' ? `failed:${run.error?.type ?? FailureType.untyped}` : ''),
  };
}

/**
 * The search attributes as they stand; `publish` upserts those that changed,
 * when the change is meaningful for a visibility query (`isMeaningfulChange`):
 * a status, pending approvals or a termination reason at once, the counters
 * with them or every few iterations.
 */
export function createSearchAttributePublisher() {
  let published: SearchAttributeValues | undefined;
  return function publish(run: RunRecord): void {
    const current = searchAttributeValues(run);
    const pairs = changedPairs(published, current);
    if (pairs.length === 0) return;
    if (!isMeaningfulChange(published, current)) return;
    published = current;
    wf.upsertSearchAttributes(pairs);
  };
}

/** The pairs to upsert: every value that differs from what was sent; the termination reason only once there is one. */
function changedPairs(
  published: SearchAttributeValues | undefined,
  current: SearchAttributeValues,
): SearchAttributeUpdatePair[] {
  const pairs: SearchAttributeUpdatePair[] = [];
  if (current.status !== published?.status) pairs.push({ key: AgentStatusKey, value: current.status });
  if (current.iterations !== published?.iterations) pairs.push({ key: AgentIterationsKey, value: current.iterations });
  if (current.totalTokens !== published?.totalTokens)
    pairs.push({ key: AgentTotalTokensKey, value: current.totalTokens });
  // Rides on an upsert the others decide: replay compares an upsert's command, not its attributes (test/replay).
  if (current.costUsd !== undefined && current.costUsd !== published?.costUsd)
    pairs.push({ key: AgentCostUsdKey, value: current.costUsd });
  if (current.pendingApprovals !== published?.pendingApprovals)
    pairs.push({ key: AgentPendingApprovalsKey, value: current.pendingApprovals });
  if (current.terminationReason !== (published?.terminationReason ?? '') && current.terminationReason !== '') {
    pairs.push({ key: AgentTerminationReasonKey, value: current.terminationReason });
  }
  return pairs;
}

/** The calls waiting for a decision: the run's own, then those its running nested agents wait on (`nested-approvals.ts`). */
export function allPendingApprovals(run: RunRecord): PendingApproval[] {
  return run.nestedRuns.size === 0
    ? run.pendingApprovals
    : [...run.pendingApprovals, ...listedNestedApprovals(run.nestedRuns)];
}

export function snapshot(run: RunRecord): AgentState {
  const lastEvent = run.events.last();
  const pendingApprovals = allPendingApprovals(run);
  const nestedQuestions = run.nestedRuns.size === 0 ? [] : listedNestedQuestions(run.nestedRuns);
  return {
    schemaVersion: SCHEMA_VERSION,
    status: run.status,
    iteration: run.iteration,
    invocations: run.invocations,
    consecutiveNudges: run.consecutiveNudges,
    restrictionInjections: run.restrictionInjections,
    messages: run.messages,
    ...(run.segment === undefined
      ? {}
      : {
          transcript: {
            total: transcriptTotal(run.messages, run.segment),
            from: run.segment.base,
            pinned: run.segment.pinned,
          },
        }),
    usage: runUsage(run),
    activity: run.activity,
    pendingApprovals,
    ...(pendingApprovals.length > 0
      ? { waitingFor: 'approval' as const }
      : run.pendingQuestion !== undefined
        ? { waitingFor: 'input' as const, question: run.pendingQuestion }
        : run.elicitations[0] !== undefined
          ? { waitingFor: 'input' as const, question: elicitationQuestion(run.elicitations[0]) }
          : {}),
    ...(nestedQuestions.length > 0 ? { nestedQuestions } : {}),
    limits: run.limits,
    ...(lastEvent === undefined ? {} : { lastEvent }),
    ...(run.terminationReason === undefined ? {} : { terminationReason: run.terminationReason }),
    ...(run.error === undefined ? {} : { error: run.error }),
  };
}

function elicitationQuestion(pending: PendingElicitation): NonNullable<AgentState['question']> {
  const { callId, question, askedAt, server, id } = pending;
  return { callId, question, askedAt, server, elicitationId: id };
}

/** The model's latest answer: the last assistant message of the conversation, if there is one. */
export function lastAssistantMessage(run: RunRecord): AssistantMessage | undefined {
  for (let index = run.messages.length - 1; index >= 0; index -= 1) {
    const message = run.messages[index];
    if (message?.role === 'assistant') return message;
  }
  return undefined;
}

/** The text of the last assistant message that has some: the response of a run stopped before it answered. */
export function lastAssistantText(run: RunRecord): string {
  const last = [...run.messages].reverse().find((message) => message.role === 'assistant' && message.content);
  return last?.role === 'assistant' ? (last.content ?? '') : '';
}
