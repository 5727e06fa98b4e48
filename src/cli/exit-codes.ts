import type { RunOutcome } from '../client/run-control';
import { FailureType, isFailureType, type FailureTypeName } from '../shared/failure-catalogue';

/**
 * The command-line tool's exit codes. Scripts branch on them, so each one
 * means one thing across every command, and `--help` lists them.
 */
export const ExitCode = {
  /** The run completed, or the command did what it was asked. */
  ok: 0,
  /** The run failed. */
  runFailed: 1,
  /** The command line or the run's input is wrong; every problem is printed. */
  usage: 2,
  /** The run was stopped from outside (the `terminate` signal, or Temporal itself). */
  runTerminated: 3,
  /** No such run, or the run refused the request (a rejected decision, a run that has ended). */
  refused: 4,
  /** Temporal could not be reached, or something else went wrong that the operator cannot fix by retyping. */
  unexpected: 5,
  /** Following stopped on Ctrl-C while the run goes on: the shell's usual status for an interrupted command. */
  interrupted: 130,
} as const;
/** One of {@link ExitCode}'s values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit-code table shown at the end of every `--help`. */
export const EXIT_CODES_HELP = [
  'Exit codes:',
  '  0    the run completed, or the command succeeded',
  '  1    the run failed',
  '  2    usage error or invalid input (each problem is printed; also when the worker refuses the input)',
  '  3    the run was terminated (stopped from outside)',
  '  4    not found or refused: unknown run, rejected decision, run already ended, run id already taken',
  '  5    could not reach Temporal, or another unexpected error',
  '  130  stopped following on Ctrl-C; the run goes on',
].join('\n');

/**
 * The exit code of a failed run, by failure type (`InvalidAgentInput` counts as invalid input: fix the command line); a
 * `Record` over the catalogue, so a new type needs a code.
 */
export const EXIT_CODE_OF_FAILURE: Readonly<Record<FailureTypeName, ExitCode>> = {
  [FailureType.invalidInput]: ExitCode.usage,
  [FailureType.maxInvocationsExceeded]: ExitCode.runFailed,
  [FailureType.maxConsecutiveNudgesExceeded]: ExitCode.runFailed,
  [FailureType.tokenBudgetExhausted]: ExitCode.runFailed,
  [FailureType.costBudgetExceeded]: ExitCode.runFailed,
  [FailureType.approvalTimedOut]: ExitCode.runFailed,
  [FailureType.contextTooLarge]: ExitCode.runFailed,
  [FailureType.historyTooLarge]: ExitCode.runFailed,
  [FailureType.answerTruncated]: ExitCode.runFailed,
  [FailureType.compactionFailed]: ExitCode.runFailed,
  [FailureType.outputInvalid]: ExitCode.runFailed,
  [FailureType.invalidDecision]: ExitCode.runFailed,
  [FailureType.invalidModelCallInput]: ExitCode.runFailed,
  [FailureType.modelRequestUnavailable]: ExitCode.runFailed,
  [FailureType.invalidLimits]: ExitCode.runFailed,
  [FailureType.invalidAnswer]: ExitCode.runFailed,
  [FailureType.modelCallBadRequest]: ExitCode.runFailed,
  [FailureType.modelCallUnauthorized]: ExitCode.runFailed,
  [FailureType.modelCallForbidden]: ExitCode.runFailed,
  [FailureType.modelCallNotFound]: ExitCode.runFailed,
  [FailureType.modelCallRequestTimeout]: ExitCode.runFailed,
  [FailureType.modelCallConflict]: ExitCode.runFailed,
  [FailureType.modelCallRateLimited]: ExitCode.runFailed,
  [FailureType.modelCallServerError]: ExitCode.runFailed,
  [FailureType.modelCallClientError]: ExitCode.runFailed,
  [FailureType.modelCallQuotaExceeded]: ExitCode.runFailed,
  [FailureType.modelCallContextOverflow]: ExitCode.runFailed,
  [FailureType.modelCallConnectionTimeout]: ExitCode.runFailed,
  [FailureType.modelCallConnectionError]: ExitCode.runFailed,
  [FailureType.modelCallUnexpected]: ExitCode.runFailed,
  [FailureType.modelCallInvalidResponse]: ExitCode.runFailed,
  [FailureType.modelCallStreamInterrupted]: ExitCode.runFailed,
  [FailureType.modelCallPriceUnknown]: ExitCode.runFailed,
  [FailureType.modelCallUnknownEndpoint]: ExitCode.runFailed,
  [FailureType.modelCallTimeout]: ExitCode.runFailed,
  [FailureType.modelCallFailed]: ExitCode.runFailed,
  [FailureType.toolCallRetryable]: ExitCode.runFailed,
  [FailureType.toolCallLost]: ExitCode.runFailed,
  [FailureType.maxDepthExceeded]: ExitCode.runFailed,
  [FailureType.conversationBusy]: ExitCode.runFailed,
  [FailureType.conversationEmpty]: ExitCode.runFailed,
  [FailureType.conversationEnded]: ExitCode.runFailed,
  [FailureType.invalidChatRequest]: ExitCode.runFailed,
  [FailureType.conversationTooLarge]: ExitCode.runFailed,
  [FailureType.turnTerminated]: ExitCode.runFailed,
  [FailureType.turnFailed]: ExitCode.runFailed,
  [FailureType.workflowTimedOut]: ExitCode.runFailed,
  [FailureType.untyped]: ExitCode.runFailed,
};

/** How a followed run's end maps to an exit code; a failure type outside the catalogue is a failed run. */
export function exitCodeForOutcome(outcome: RunOutcome): ExitCode {
  switch (outcome.kind) {
    case 'completed':
      return ExitCode.ok;
    case 'terminated':
      return ExitCode.runTerminated;
    case 'failed':
      return isFailureType(outcome.type) ? EXIT_CODE_OF_FAILURE[outcome.type] : ExitCode.runFailed;
  }
}
