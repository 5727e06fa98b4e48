import { isWorkflowNotFound } from '../temporal/errors';
import { isRefusedAsEnded } from '../temporal/run-ended';

/** No run with this id exists in the namespace. */
export class RunNotFoundError extends Error {
  override readonly name = 'RunNotFoundError';

  constructor(readonly workflowId: string) {
    super(`No run "${workflowId}" exists.`);
  }
}

/** The run has ended, so it takes no more signals or decisions. */
export class RunEndedError extends Error {
  override readonly name = 'RunEndedError';

  constructor(
    readonly workflowId: string,
    message = `Run "${workflowId}" has already ended.`,
  ) {
    super(message);
  }
}

/** `error` as one of the errors above when Temporal said there is no such run, or that it has ended; else as it is. */
export function notFoundOr(error: unknown, workflowId: string): unknown {
  // Signals and updates to a closed run come back as not-found too, but say why.
  if (isRefusedAsEnded(error)) return new RunEndedError(workflowId);
  return isWorkflowNotFound(error) ? new RunNotFoundError(workflowId) : error;
}

/**
 * No worker polls the run's task queue, so what was asked of the run (a query, an update) waits until one does: said
 * within seconds instead of a wait that looks like a hang.
 */
export class NoWorkerError extends Error {
  override readonly name = 'NoWorkerError';

  constructor(
    readonly workflowId: string,
    readonly taskQueue: string,
  ) {
    super(
      `No worker polls task queue "${taskQueue}", so run "${workflowId}" cannot answer: start a worker on that queue ` +
        `(npm run worker with AGENT_TASK_QUEUE=${taskQueue}, or createAgentWorker({ taskQueue: '${taskQueue}' })) ` +
        `and try again. See docs/troubleshooting.md.`,
    );
  }
}
