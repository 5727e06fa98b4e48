import type { Duration } from '@temporalio/common';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import type { ChatMessage, ToolCall, Usage } from '../shared';

/**
 * The run's business failures. Each is a non-retryable `ApplicationFailure`
 * with a stable `type`; its details carry what the run had done so far so a
 * caller can see what happened.
 */

/** What a failed run had produced, attached to its failure. */
export interface PartialRun {
  messages: ChatMessage[];
  usage: Usage;
  iterations: number;
}

export const FailureType = {
  invalidInput: 'InvalidAgentInput',
  maxInvocationsExceeded: 'MaxInvocationsExceeded',
  maxConsecutiveNudgesExceeded: 'MaxConsecutiveNudgesExceeded',
  modelCallFailed: 'ModelCall.Failed',
} as const;

export function invalidAgentInput(problems: readonly string[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.invalidInput,
    message: `Invalid agent input: ${problems.join('; ')}`,
    nonRetryable: true,
    details: [{ problems }],
  });
}

export function unknownTools(unknown: readonly string[], registered: readonly string[]): ApplicationFailure {
  const problems = unknown.map(
    (name) => `tools: unknown tool "${name}"; the worker registers: ${registered.join(', ') || 'no tools'}`,
  );
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
    type: cause instanceof TimeoutFailure ? 'ModelCall.Timeout' : FailureType.modelCallFailed,
    message,
    nonRetryable: true,
    details: [partial],
    cause: error instanceof Error ? error : undefined,
  });
}

export function tokenBudgetExhausted(
  breach: { measure: 'total' | 'prompt' | 'completion'; used: number; limit: number },
  partial: PartialRun,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'TokenBudgetExhausted',
    message: `Token budget exhausted: ${breach.used} ${breach.measure} tokens used, budget ${breach.limit}`,
    nonRetryable: true,
    details: [{ ...breach, ...partial }],
  });
}

export function approvalTimedOut(call: ToolCall, timeout: Duration | string, partial: PartialRun): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'ApprovalTimedOut',
    message: `No decision on ${call.function.name} (${call.id}) within ${String(timeout)}`,
    nonRetryable: true,
    details: [{ callId: call.id, toolName: call.function.name, ...partial }],
  });
}
