import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { InvalidAgentInputError } from '../client/run-failures';
import { ConfigError } from '../config';
import { DecisionRejectedError, NoWorkerError, RunEndedError, RunNotFoundError } from '../client/run-control';
import { InvalidListQueryError } from '../client/visibility-query';
import { NoCurrentVersionError } from '../temporal/no-current-version-error';
import { ExitCode } from './exit-codes';
import { ForkRefusedError, type ForkRefusal } from '../client/fork-errors';
import { UsageError } from './usage-error';

/** Fork refusals about the source run rather than the operator's request: the run says no (4), not a usage error. */
const SOURCE_REFUSALS: ReadonlySet<ForkRefusal> = new Set(['history-gone', 'history-not-replayed']);

/** What the tool prints for an error, and the exit code it ends with. */
export interface ErrorReport {
  code: ExitCode;
  /** Lines for stderr: messages only, never a stack. */
  lines: string[];
}

/**
 * Sorts an error into the exit codes: the operator's mistake (2), a run
 * that is not there or says no (4), or anything else (5). Everything else
 * includes an unreachable server, whose message already says what to do.
 */
export function reportError(error: unknown): ErrorReport {
  if (error instanceof UsageError)
    return { code: ExitCode.usage, lines: error.problems.map((problem) => `error: ${problem}`) };
  if (error instanceof InvalidAgentInputError) {
    return {
      code: ExitCode.usage,
      lines: ["error: the run's input is invalid:", ...error.problems.map((problem) => `  - ${problem}`)],
    };
  }
  if (error instanceof ForkRefusedError) {
    return {
      code: SOURCE_REFUSALS.has(error.refusal) ? ExitCode.refused : ExitCode.usage,
      lines: [`error: ${error.message}`],
    };
  }
  if (error instanceof ConfigError) return { code: ExitCode.usage, lines: [`error: ${error.message}`] };
  if (error instanceof InvalidListQueryError)
    return { code: ExitCode.usage, lines: [`error: --query: ${error.message}`] };
  if (error instanceof RunNotFoundError || error instanceof RunEndedError)
    return { code: ExitCode.refused, lines: [`error: ${error.message}`] };
  if (error instanceof WorkflowNotFoundError)
    return { code: ExitCode.refused, lines: [`error: No run "${error.workflowId}" exists.`] };
  if (error instanceof DecisionRejectedError)
    return { code: ExitCode.refused, lines: [`error: the run refused the decision: ${error.message}`] };
  if (error instanceof NoWorkerError) return { code: ExitCode.unexpected, lines: [`error: ${error.message}`] };
  if (error instanceof NoCurrentVersionError) return { code: ExitCode.refused, lines: [`error: ${error.message}`] };
  if (error instanceof WorkflowExecutionAlreadyStartedError) {
    return {
      code: ExitCode.refused,
      lines: [
        `error: a run with id "${error.workflowId}" already exists; give another --id, or leave it out for a fresh one.`,
      ],
    };
  }
  return { code: ExitCode.unexpected, lines: [`error: ${error instanceof Error ? error.message : String(error)}`] };
}
