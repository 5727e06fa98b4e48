import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { InvalidAgentInputError } from '../client/invalid-agent-input-error';
import { ConfigError } from '../config';
import { DecisionRejectedError } from '../client/decision-rejected-error';
import { NoWorkerError } from '../client/no-worker-error';
import { RunEndedError } from '../client/run-ended-error';
import { RunNotFoundError } from '../client/run-not-found-error';
import { InvalidListQueryError } from '../client/invalid-list-query-error';
import { NoCurrentVersionError } from '../temporal/no-current-version-error';
import { ExitCode } from './exit-codes';
import { ForkRefusedError } from '../client/fork-refused-error';
import { type ForkRefusal } from '../client/fork-refusal';
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
  if (UsageError.isInstance(error))
    return { code: ExitCode.usage, lines: error.problems.map((problem) => `error: ${problem}`) };
  if (InvalidAgentInputError.isInstance(error)) {
    return {
      code: ExitCode.usage,
      lines: ["error: the run's input is invalid:", ...error.problems.map((problem) => `  - ${problem}`)],
    };
  }
  if (ForkRefusedError.isInstance(error)) {
    return {
      code: SOURCE_REFUSALS.has(error.refusal) ? ExitCode.refused : ExitCode.usage,
      lines: [`error: ${error.message}`],
    };
  }
  if (ConfigError.isInstance(error)) return { code: ExitCode.usage, lines: [`error: ${error.message}`] };
  if (InvalidListQueryError.isInstance(error))
    return { code: ExitCode.usage, lines: [`error: --query: ${error.message}`] };
  if (RunNotFoundError.isInstance(error) || RunEndedError.isInstance(error))
    return { code: ExitCode.refused, lines: [`error: ${error.message}`] };
  if (error instanceof WorkflowNotFoundError)
    return { code: ExitCode.refused, lines: [`error: No run "${error.workflowId}" exists.`] };
  if (DecisionRejectedError.isInstance(error))
    return { code: ExitCode.refused, lines: [`error: the run refused the decision: ${error.message}`] };
  if (NoWorkerError.isInstance(error)) return { code: ExitCode.unexpected, lines: [`error: ${error.message}`] };
  if (NoCurrentVersionError.isInstance(error)) return { code: ExitCode.refused, lines: [`error: ${error.message}`] };
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
