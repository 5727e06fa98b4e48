import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.HistoryNotReplayedError');

/** A history that did not replay against this process's workflow code (another build, or a user's own workflows). */
export class HistoryNotReplayedError extends AgentRunnerError {
  override readonly name = 'HistoryNotReplayedError';

  private get [marker](): true {
    return true;
  }

  constructor(workflowId: string, cause: unknown) {
    super(`the history of ${workflowId} does not replay against this workflow code`, { cause });
  }

  static override isInstance(error: unknown): error is HistoryNotReplayedError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
