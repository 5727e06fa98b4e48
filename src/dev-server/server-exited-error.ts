import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.ServerExitedError');

/** Thrown by a wait's `check` when the server process ended before it answered. */
export class ServerExitedError extends AgentRunnerError {
  override readonly name = 'ServerExitedError';

  private get [marker](): true {
    return true;
  }

  constructor(readonly exitCode: number | null) {
    super(`temporal server start-dev exited with code ${exitCode} before it answered.`);
  }

  static override isInstance(error: unknown): error is ServerExitedError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
