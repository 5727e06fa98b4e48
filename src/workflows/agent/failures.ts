import type { Duration } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { FailureType, type PartialRun } from '../../shared/failure-catalogue';
import type { ToolServerProblem } from '../../shared/activity-types';
import { MCP_TOOL_SEPARATOR } from '../../shared/mcp-tool-names';
import {
  FAILURE_MESSAGES_LIMIT_BYTES,
  FAILURE_RESPONSE_LIMIT_CHARS,
  TEMPORAL_HISTORY_EVENT_LIMIT,
  TEMPORAL_HISTORY_LIMIT_BYTES,
  TEMPORAL_PAYLOAD_LIMIT_BYTES,
} from '../../shared/defaults/sizes';
import { formatBytes, jsonBytes } from '../../shared/payload-limits';
import { type ChatMessage, type ToolCall, type Usage } from '../../shared/messages';
import { type TerminationReason } from '../../shared/agent-result';
import type { SizeBreach } from '../rules/size-rules';
import { spentUsageIn } from '../../shared/spent-usage';

/**
 * The run's business failures. Each is a non-retryable `ApplicationFailure`
 * with a stable `type`; its details carry what the run had done so far so a
 * caller can see what happened.
 */

/** The run's {@link PartialRun}: its messages only when they fit in a failure. */
export function partialRun(messages: ChatMessage[], usage: Usage, iterations: number): PartialRun {
  const fits = jsonBytes(messages) <= FAILURE_MESSAGES_LIMIT_BYTES;
  return { ...(fits ? { messages } : {}), messageCount: messages.length, usage, iterations };
}

/** The catalogue's failure types, here too for the run's own failures: see `shared/failure-catalogue.ts`. */
export { FailureType };

export function invalidAgentInput(problems: readonly string[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.invalidInput,
    message: `Invalid agent input: ${problems.join('; ')}`,
    nonRetryable: true,
    details: [{ problems }],
  });
}

export function unknownTools(
  unknown: readonly string[],
  registered: readonly string[],
  unavailable: readonly ToolServerProblem[] = [],
): ApplicationFailure {
  const problems = unknown.map((name) => {
    // An MCP server that could not be listed explains its tools' absence better than the list of the others.
    const server = unavailable.find((problem) =>
      // A problem with one tool explains only that tool's absence, not that of a name the server never listed.
      problem.tool === undefined ? name.startsWith(`${problem.server}${MCP_TOOL_SEPARATOR}`) : problem.tool === name,
    );
    if (server !== undefined) return `tools: "${name}" is not available: ${server.reason}`;
    return `tools: unknown tool "${name}"; the worker registers: ${registered.join(', ') || 'no tools'}`;
  });
  return invalidAgentInput(problems);
}

export function maxInvocationsExceeded(limit: number, partial: PartialRun): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.maxInvocationsExceeded,
    message: 'Max invocations exceeded',
    nonRetryable: true,
    details: [{ limit, ...partial }],
  });
}

export function maxConsecutiveNudgesExceeded(limit: number, partial: PartialRun): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.maxConsecutiveNudgesExceeded,
    message: 'Max consecutive nudges exceeded',
    nonRetryable: true,
    details: [{ limit, ...partial }],
  });
}

/**
 * Structured output: the model's answers never validated against `output.schema`. The details carry the last
 * answer's problems and how many corrections the run sent back.
 */
export function outputInvalid(problems: string[], maxCorrections: number, partial: PartialRun): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.outputInvalid,
    message: `The model gave no valid answer to the output schema after ${maxCorrections} correction${maxCorrections === 1 ? '' : 's'}: ${problems.join('; ')}`,
    nonRetryable: true,
    details: [{ problems, maxCorrections, ...partial }],
  });
}

/**
 * The run's failure for a model call that failed for good: the activity's
 * classified type (`ModelCall.Unauthorized`, ...) and the provider's message
 * are kept so the caller sees what to fix.
 */
export function modelCallFailed(error: unknown, partial: PartialRun): ApplicationFailure {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    return ApplicationFailure.create({
      type: cause.type ?? FailureType.modelCallFailed,
      message: cause.message,
      nonRetryable: true,
      details: [partial],
      cause: error instanceof Error ? error : undefined,
    });
  }
  const message =
    cause instanceof TimeoutFailure
      ? `The model call timed out (${cause.timeoutType}) on every attempt`
      : `The model call failed: ${cause instanceof Error ? cause.message : String(cause)}`;
  return ApplicationFailure.create({
    type: cause instanceof TimeoutFailure ? FailureType.modelCallTimeout : FailureType.modelCallFailed,
    message,
    nonRetryable: true,
    details: [partial],
    cause: error instanceof Error ? error : undefined,
  });
}

/**
 * The model's final answer was cut by the token cap and the run's `answerTruncation` did not accept it: the
 * details carry the cut text and the run so far, so a caller still has what was written.
 */
export function answerTruncated(
  truncation: { continuations: number; maxContinuations: number; response: string },
  partial: PartialRun,
): ApplicationFailure {
  const asked =
    truncation.continuations === 0
      ? 'answerTruncation.action is "fail"'
      : `it was still cut after ${truncation.continuations} continuation(s)`;
  const keptResponse =
    truncation.response.length <= FAILURE_RESPONSE_LIMIT_CHARS ? { response: truncation.response } : {};
  return ApplicationFailure.create({
    type: FailureType.answerTruncated,
    message:
      `The model's answer was cut by the output token limit (finish_reason "length"), and ${asked}. ` +
      'Raise modelSettings.maxTokens (or AGENT_MODEL_MAX_TOKENS), allow more answerTruncation.maxContinuations, or accept cut answers with answerTruncation.action "accept".',
    nonRetryable: true,
    details: [{ continuations: truncation.continuations, ...keptResponse, ...partial }],
  });
}

export function tokenBudgetExhausted(
  breach: { measure: 'total' | 'prompt' | 'completion'; used: number; limit: number },
  partial: PartialRun,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.tokenBudgetExhausted,
    message: `Token budget exhausted: ${breach.used} ${breach.measure} tokens used, budget ${breach.limit}`,
    nonRetryable: true,
    details: [{ ...breach, ...partial }],
  });
}

/** The run's model calls cost `maxUsd` or more: checked before each call, like the token budget. */
export function costBudgetExceeded(
  { spentUsd, maxUsd }: { spentUsd: number; maxUsd: number },
  partial: PartialRun,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.costBudgetExceeded,
    message: `Cost budget exceeded: $${spentUsd.toFixed(6)} spent on model calls, budget $${maxUsd}`,
    nonRetryable: true,
    details: [{ spentUsd, maxUsd, ...partial }],
  });
}

export function approvalTimedOut(call: ToolCall, timeout: Duration | string, partial: PartialRun): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.approvalTimedOut,
    message: `No decision on ${call.function.name} (${call.id}) within ${String(timeout)}`,
    nonRetryable: true,
    details: [{ callId: call.id, toolName: call.function.name, ...partial }],
  });
}

/** What the size failures carry instead of the conversation. */
function progressOf(partial: PartialRun): { iterations: number; usage: Usage; messageCount: number } {
  return { iterations: partial.iterations, usage: partial.usage, messageCount: partial.messageCount };
}

/** What a size failure tells the caller to do. */
const SIZE_ADVICE = 'Cut long tool results with resultProcessing, or split the work across runs.';

/**
 * The run stopped before a model call that would have passed one of
 * Temporal's size limits. The details carry sizes and counters, never the
 * conversation: that is what is too large.
 */
export function sizeLimitReached(breach: SizeBreach, partial: PartialRun): ApplicationFailure {
  const progress = progressOf(partial);
  if (breach.kind === 'context') {
    return ApplicationFailure.create({
      type: FailureType.contextTooLarge,
      message:
        `The run's conversation has grown to ${formatBytes(breach.bytes)}, past the ${formatBytes(breach.budget)} a run keeps ` +
        `so its model calls and result stay under Temporal's ${formatBytes(TEMPORAL_PAYLOAD_LIMIT_BYTES)} payload limit. ${SIZE_ADVICE}`,
      nonRetryable: true,
      details: [{ bytes: breach.bytes, budget: breach.budget, ...progress }],
    });
  }
  return ApplicationFailure.create({
    type: FailureType.historyTooLarge,
    message:
      `The run's event history has reached ${formatBytes(breach.bytes)} in ${breach.events} events, past the ` +
      `${formatBytes(breach.budgetBytes)} or ${breach.budgetEvents} events a run keeps; Temporal ends a workflow at ` +
      `${formatBytes(TEMPORAL_HISTORY_LIMIT_BYTES)} or ${TEMPORAL_HISTORY_EVENT_LIMIT} events. ` +
      'Each model call records the whole conversation: mask old tool results with masking, cut them with resultProcessing, or split the work across runs.',
    nonRetryable: true,
    details: [
      {
        bytes: breach.bytes,
        events: breach.events,
        budgetBytes: breach.budgetBytes,
        budgetEvents: breach.budgetEvents,
        ...progress,
      },
    ],
  });
}

/**
 * The run ended, but its result would pass Temporal's payload limit (its
 * last tool results were large). The response is kept when it fits.
 */
export function resultTooLarge(
  bytes: number,
  reason: TerminationReason,
  response: string,
  partial: PartialRun,
): ApplicationFailure {
  const keptResponse = response.length <= FAILURE_RESPONSE_LIMIT_CHARS ? { response } : {};
  return ApplicationFailure.create({
    type: FailureType.contextTooLarge,
    message:
      `The run ended (${reason.type}), but its result would be ${formatBytes(bytes)}, over Temporal's ` +
      `${formatBytes(TEMPORAL_PAYLOAD_LIMIT_BYTES)} payload limit. ${SIZE_ADVICE}`,
    nonRetryable: true,
    details: [{ bytes, terminationReason: reason, ...keptResponse, ...progressOf(partial) }],
  });
}

/** The run could not continue as new: what it carries would not fit in one payload. */
export function continueAsNewTooLarge(bytes: number, partial: PartialRun): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.contextTooLarge,
    message:
      `The run could not continue as new: what it carries (its conversation and state, ${formatBytes(bytes)} without events) ` +
      `is over Temporal's ${formatBytes(TEMPORAL_PAYLOAD_LIMIT_BYTES)} payload limit. ${SIZE_ADVICE}`,
    nonRetryable: true,
    details: [{ bytes, ...progressOf(partial) }],
  });
}

/**
 * Compaction failed, so the run does not call the model on a context past its
 * `compaction.maxTokens`: the summarising call failed for good (`error`; its
 * `ModelCall.*` type and message are kept as `causeType` and in the message),
 * or the model answered it without text (`error` undefined).
 */
export function compactionFailed(error: unknown, partial: PartialRun): ApplicationFailure {
  if (error === undefined) {
    return ApplicationFailure.create({
      type: FailureType.compactionFailed,
      message:
        'Compaction failed: the model answered the request for a summary without any text. Try another compaction.model or other compaction.instructions.',
      nonRetryable: true,
      details: [{ causeType: null, ...partial }],
    });
  }
  const cause = modelCallFailed(error, partial);
  return ApplicationFailure.create({
    type: FailureType.compactionFailed,
    message: `Compaction failed (${cause.type ?? FailureType.modelCallFailed}): ${cause.message}`,
    nonRetryable: true,
    details: [{ causeType: cause.type ?? null, ...partial }],
    cause: error instanceof Error ? error : undefined,
  });
}

/**
 * What a model call that failed for good spent on its attempts, as it reported it: the last entry of its
 * failure's details, or its last heartbeat's details when it timed out (`src/activities/attempt-usage.ts`).
 * Read from the failure in the history, so a replay reads the same.
 */
export function failedCallUsage(error: unknown): Usage | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof TimeoutFailure) return spentUsageIn(cause.lastHeartbeatDetails);
  if (!(cause instanceof ApplicationFailure)) return undefined;
  for (const entry of [...(cause.details ?? [])].reverse()) {
    const spent = spentUsageIn(entry);
    if (spent !== undefined) return spent;
  }
  return undefined;
}
