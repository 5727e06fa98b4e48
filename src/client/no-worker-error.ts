import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.NoWorkerError');

/**
 * No worker polls the run's task queue, so what was asked of the run (a query, an update) waits until one does: said
 * within seconds instead of a wait that looks like a hang.
 */
export class NoWorkerError extends AgentRunnerError {
  override readonly name = 'NoWorkerError';

  private get [marker](): true {
    return true;
  }

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

  static override isInstance(error: unknown): error is NoWorkerError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
