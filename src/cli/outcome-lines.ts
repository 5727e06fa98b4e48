import type { RunOutcome } from '../client/run-control';
import type { TerminationReason } from '../shared/agent-result';
import type { Usage } from '../shared/messages';
import { oneLine } from './one-line';
import { FailureType } from '../shared/failure-catalogue';

/**
 * The end of a followed run as a person reads it: the final response in
 * full, then one line saying how the run ended and what it cost.
 */
export function describeOutcome(outcome: RunOutcome): string[] {
  switch (outcome.kind) {
    case 'completed': {
      const { result } = outcome;
      return [
        '',
        `Response: ${result.response}`,
        ...(result.truncated === true ? ['(The response was cut by the output token limit.)'] : []),
        `Completed: ${describeTerminationReason(result.terminationReason)} · ${describeCost(result.iterations, result.usage)}.`,
      ];
    }
    case 'terminated': {
      const result = outcome.result;
      const response = result !== undefined && result.response !== '' ? [`Last response: ${result.response}`] : [];
      const cost = result === undefined ? '' : ` · ${describeCost(result.iterations, result.usage)}`;
      return ['', ...response, `Terminated: ${outcome.reason}${cost}.`];
    }
    case 'failed': {
      // Only a refused input lists problems as the input's; an answer's problems are in the message.
      const problems = outcome.type === FailureType.outputInvalid ? [] : describeProblems(outcome.details);
      // The message of an input failure repeats its problems on one line; the list reads better alone.
      const message =
        problems.length > 0
          ? 'the input was refused:'
          : `${outcome.message.replace(/\.$/, '')}${describeFailureCost(outcome.details)}.`;
      return ['', `Failed (${outcome.type}): ${message}`, ...problems];
    }
  }
}

/** Why a run ended, in a few words, led by the reason's type so it can be searched for. */
export function describeTerminationReason(reason: TerminationReason): string {
  switch (reason.type) {
    case 'complete':
      return 'complete (the model answered)';
    case 'terminating_tool':
      return `terminating_tool (${reason.toolName} was called)`;
    case 'terminate_response':
      return `terminate_response (${reason.toolName} ended the run)`;
    case 'stop_condition':
      return `stop_condition (${reason.condition}: ${oneLine(reason.detail)})`;
    case 'loop_detected':
      return `loop_detected (${reason.toolName} called ${reason.count} times in a row)`;
    case 'circuit_breaker':
      return `circuit_breaker (${reason.toolName} failed ${reason.count} times in a row)`;
    case 'input_timeout':
      return `input_timeout (no answer within ${reason.limit})`;
    case 'timeout':
      return `timeout (the run's limit of ${reason.limit} passed)`;
    case 'external':
      return `external (stopped by ${reason.via}${reason.reason ? `: ${oneLine(reason.reason)}` : ''})`;
  }
}

/** `3 iterations · 1234 tokens (1000 prompt, 800 of them cached, 234 completion, 100 of them reasoning)` */
export function describeCost(iterations: number, usage: Usage): string {
  const cached = usage.cachedPromptTokens === undefined ? '' : `, ${usage.cachedPromptTokens} of them cached`;
  const reasoning = usage.reasoningTokens === undefined ? '' : `, ${usage.reasoningTokens} of them reasoning`;
  return `${iterations} iteration${iterations === 1 ? '' : 's'} · ${usage.estimated === true ? 'about ' : ''}${usage.totalTokens} tokens (${usage.promptTokens} prompt${cached}, ${usage.completionTokens} completion${reasoning})`;
}

/** A failure's details carry what the run had done, when the failure type records it. */
function describeFailureCost(details: unknown[]): string {
  const partial = details[0] as { iterations?: unknown; usage?: Usage } | undefined;
  if (typeof partial?.iterations !== 'number' || typeof partial.usage?.totalTokens !== 'number') return '';
  return ` · ${describeCost(partial.iterations, partial.usage)}`;
}

/** `InvalidAgentInput` failures list their problems; each gets its own line. */
function describeProblems(details: unknown[]): string[] {
  const problems = (details[0] as { problems?: unknown } | undefined)?.problems;
  return Array.isArray(problems) ? problems.map((problem) => `  - ${String(problem)}`) : [];
}
