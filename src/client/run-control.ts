import {
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import {
  AgentIterationsKey,
  AgentPendingApprovalsKey,
  AgentStatusKey,
  AgentTerminationReasonKey,
  AgentTotalTokensKey,
  AgentCostUsdKey,
} from '../workflow-contract/search-attributes';
import { FailureType } from '../shared/failure-catalogue';
import { unlessNoWorker } from './worker-presence';
import { CLIENT_DEFAULTS } from '../shared/defaults/client';
import { WORKFLOW_TYPE } from '../shared/defaults/names';
import {
  answerElicitationUpdate,
  decideUpdate,
  stopSignal,
  terminateSignal,
  userMessageSignal,
} from '../workflow-contract/definitions';
import type { AnswerElicitationInput, ElicitationAnswered } from '../shared/mcp-elicitation-answer';
import { type RunEvent } from '../shared/run-events';
import { type AgentResult } from '../shared/agent-result';
import { type AgentWorkflowResult, withAnswerRestored } from '../shared/result-answer';
import { type ApprovalDecision, type DecideInput } from '../shared/control';
import { type ModelStreamEvent } from '../shared/model-stream-events';
import { notFoundOr } from './run-errors';
import { followDurableEvents, type DurableFollowOptions } from './follow-events';
import { withModelDeltas, type StreamTrust } from './model-stream-follower';
import { failureOf } from '../temporal/failure-of';
import { canonicalVisibilityQuery, quoteLiteral } from './visibility-query';
import { DecisionRejectedError } from './decision-rejected-error';

/**
 * Steering and following a run from outside: decisions, termination, the
 * event feed and the final outcome. Shared by the HTTP API and the
 * command-line tool, so both say the same thing about a run.
 */

/**
 * Approves or denies a pending call through the `decide` update; answers the decision as recorded. `by` names who
 * decides (`{ name: 'ops-bot' }`): recorded as `by: { name, via: 'client' }`, in the `approval-decision` event and
 * the worker's audit line. A name the run refuses (see `deciderNameSchema`) is a {@link DecisionRejectedError}.
 */
export async function decideToolCall(
  client: Client,
  workflowId: string,
  decision: DecideInput,
): Promise<ApprovalDecision> {
  const sent: DecideInput = { ...decision, by: { via: 'client', ...decision.by } };
  try {
    return await unlessNoWorker(client, workflowId, () =>
      client.workflow.getHandle(workflowId).executeUpdate(decideUpdate, { args: [sent] }),
    );
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const failure = failureOf(error);
      if (failure.kind === 'application') throw new DecisionRejectedError(failure.message, { cause: error });
      // Not the run's refusal (that is an ApplicationFailure): say what Temporal said rather than "Workflow Update failed".
      throw new Error(`The decision could not be delivered: ${failure.message}`, { cause: error });
    }
    throw notFoundOr(error, workflowId);
  }
}

/**
 * Answers an MCP server's question (update `answerElicitation`): `accept` with the form's fields, `decline` or
 * `cancel`, recorded with who answered (`by`, `via: 'client'` unless said). A refusal (no such question waits, the
 * fields do not fit its form) is a {@link DecisionRejectedError}.
 */
export async function answerElicitation(
  client: Client,
  workflowId: string,
  answer: AnswerElicitationInput,
): Promise<ElicitationAnswered> {
  const sent: AnswerElicitationInput = { ...answer, by: { via: 'client', ...answer.by } };
  try {
    return await client.workflow.getHandle(workflowId).executeUpdate(answerElicitationUpdate, { args: [sent] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const failure = failureOf(error);
      if (failure.kind === 'application') throw new DecisionRejectedError(failure.message, { cause: error });
      throw new Error(`The answer could not be delivered: ${failure.message}`, { cause: error });
    }
    throw notFoundOr(error, workflowId);
  }
}

/**
 * Asks the run to stop at its next check (signal `stop`): it ends there only when its `stopWhen` contains
 * `{ external: true }`; otherwise the request is recorded as a `stop-request` event and the run goes on.
 */
export async function stopAgentRun(client: Client, workflowId: string, reason?: string): Promise<void> {
  try {
    await client.workflow.getHandle(workflowId).signal(stopSignal, reason === undefined ? {} : { reason });
  } catch (error) {
    throw notFoundOr(error, workflowId);
  }
}

/** Asks the run to stop now, gracefully (signal `terminate`): in-flight calls are cancelled and the run returns. */
export async function terminateAgentRun(client: Client, workflowId: string, reason?: string): Promise<void> {
  try {
    await client.workflow.getHandle(workflowId).signal(terminateSignal, reason === undefined ? {} : { reason });
  } catch (error) {
    throw notFoundOr(error, workflowId);
  }
}

/**
 * Sends a person's message (signal `userMessage`): it answers `ask_question`,
 * or joins the conversation before the next model call.
 */
export async function sendUserMessage(client: Client, workflowId: string, content: string): Promise<void> {
  try {
    await client.workflow.getHandle(workflowId).signal(userMessageSignal, { content });
  } catch (error) {
    throw notFoundOr(error, workflowId);
  }
}

/** How a run ended, in the three kinds the tools report (and the CLI's exit codes distinguish). */
export type RunOutcome =
  | { kind: 'completed'; result: AgentResult }
  | { kind: 'terminated'; reason: string; result?: AgentResult }
  | { kind: 'failed'; type: string; message: string; details: unknown[] };

/** Waits for the run to end and says how. */
export async function getRunOutcome(client: Client, workflowId: string): Promise<RunOutcome> {
  try {
    const result = withAnswerRestored((await client.workflow.getHandle(workflowId).result()) as AgentWorkflowResult);
    if (result.terminationReason.type === 'external') {
      return {
        kind: 'terminated',
        reason: result.terminationReason.reason ?? `stopped by ${result.terminationReason.via}`,
        result,
      };
    }
    return { kind: 'completed', result };
  } catch (error) {
    if (error instanceof WorkflowFailedError) {
      const failure = failureOf(error);
      if (failure.kind === 'terminated')
        return { kind: 'terminated', reason: `terminated in Temporal: ${failure.message || 'no reason given'}` };
      if (failure.kind === 'timed-out') {
        return {
          kind: 'failed',
          type: FailureType.workflowTimedOut,
          message: 'the run exceeded its Temporal execution timeout',
          details: [],
        };
      }
      return { kind: 'failed', type: failure.type, message: failure.message, details: failure.details };
    }
    throw notFoundOr(error, workflowId);
  }
}

/** Options of {@link followRunEvents}. */
export interface FollowOptions extends DurableFollowOptions {
  /**
   * Ignored: following no longer polls. It waits on the run's history (Temporal's long poll, not billed) and asks
   * for events only when the run may have appended some; `settleMs` tunes it.
   * @deprecated since following waits on the history instead of polling
   */
  pollMs?: number;
  /**
   * Also yield the model's answer as it is generated ({@link ModelStreamEvent}), before each `model-response`; these
   * are not run events (no `seq`, not in the event log). @default false
   */
  deltas?: boolean;
  /**
   * With `deltas`: the certificate authorities a worker's https delta server is checked against, besides Node's.
   * @default `{ ca: <the file named by AGENT_STREAM_TLS_CA> }`, else Node's own only
   */
  streamTrust?: StreamTrust;
}

/**
 * The run's events in order, each once, ending after `run-end` (or when Temporal closes the run). Waits on the run's
 * history (not billed) and asks the `events` query only when events may have been added, about once an iteration;
 * with `deltas: true` the model's answers stream in between.
 */
export function followRunEvents(
  client: Client,
  workflowId: string,
  options: FollowOptions & { deltas: true },
): AsyncGenerator<RunEvent | ModelStreamEvent>;
export function followRunEvents(
  client: Client,
  workflowId: string,
  options?: FollowOptions & { deltas?: false },
): AsyncGenerator<RunEvent>;
export function followRunEvents(
  client: Client,
  workflowId: string,
  options?: FollowOptions,
): AsyncGenerator<RunEvent | ModelStreamEvent>;
export function followRunEvents(
  client: Client,
  workflowId: string,
  options: FollowOptions = {},
): AsyncGenerator<RunEvent | ModelStreamEvent> {
  if (options.deltas !== true) return followDurableEvents(client, workflowId, options);
  return withModelDeltas(
    client,
    workflowId,
    (signal) => followDurableEvents(client, workflowId, { ...options, signal }),
    options.signal,
    (options.after ?? 0) > 0,
    options.streamTrust,
  );
}

/** One row of {@link listAgentRuns}. */
export interface RunSummary {
  workflowId: string;
  runId: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, TERMINATED, ... */
  temporalStatus: string;
  /** The agent's own status (search attribute `AgentStatus`). */
  status?: string;
  iterations?: number;
  totalTokens?: number;
  /** What the run has cost in US dollars (`AgentCostUsd`), where its worker knows the model's price. */
  costUsd?: number;
  pendingApprovals?: number;
  terminationReason?: string;
  startTime: string;
  closeTime?: string;
}

/** Options of {@link listAgentRuns}. */
export interface ListRunsOptions {
  /** Only runs whose `AgentStatus` is this (running, waiting_for_approval, completed, failed, terminated, ...). */
  status?: string;
  /** Extra visibility query, ANDed: for example `AgentTotalTokens > 1000`. */
  query?: string;
  /** @default 20 (`CLIENT_DEFAULTS.listLimit`) */
  limit?: number;
}

/**
 * Agent runs, newest first, found by their search attributes. A run that
 * continued as new is listed once, as its latest Temporal run: the earlier
 * ones are closed with the state they had when they continued as new.
 */
export async function listAgentRuns(client: Client, options: ListRunsOptions = {}): Promise<RunSummary[]> {
  const clauses = [`WorkflowType = '${WORKFLOW_TYPE}'`, `ExecutionStatus != 'ContinuedAsNew'`];
  if (options.status !== undefined) clauses.push(`${AgentStatusKey.name} = ${quoteLiteral(options.status)}`);
  if (options.query !== undefined && options.query.trim() !== '')
    clauses.push(`(${canonicalVisibilityQuery(options.query)})`);
  const limit = options.limit ?? CLIENT_DEFAULTS.listLimit;
  const rows: RunSummary[] = [];
  for await (const execution of client.workflow.list({
    query: clauses.join(' AND '),
    pageSize: Math.min(limit, CLIENT_DEFAULTS.listPageSizeMax),
  })) {
    rows.push(summarize(execution));
    if (rows.length >= limit) break;
  }
  return rows;
}

function summarize(execution: WorkflowExecutionInfo): RunSummary {
  const attributes = execution.typedSearchAttributes;
  const optional = <T>(key: string, value: T | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    workflowId: execution.workflowId,
    runId: execution.runId,
    temporalStatus: execution.status.name,
    ...optional('status', attributes.get(AgentStatusKey)),
    ...optional('iterations', attributes.get(AgentIterationsKey)),
    ...optional('totalTokens', attributes.get(AgentTotalTokensKey)),
    ...optional('costUsd', attributes.get(AgentCostUsdKey)),
    ...optional('pendingApprovals', attributes.get(AgentPendingApprovalsKey)),
    ...optional('terminationReason', attributes.get(AgentTerminationReasonKey) || undefined),
    startTime: execution.startTime.toISOString(),
    ...optional('closeTime', execution.closeTime?.toISOString()),
  };
}
