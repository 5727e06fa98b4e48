import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.ConfigError');

/** A configuration problem, with every bad variable named. */
export class ConfigError extends AgentRunnerError {
  override readonly name = 'ConfigError';

  private get [marker](): true {
    return true;
  }

  static override isInstance(error: unknown): error is ConfigError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
