import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.CodecKeyError');

/** A key list that cannot be used; the message names the entry, never the key material. */
export class CodecKeyError extends AgentRunnerError {
  override readonly name = 'CodecKeyError';

  private get [marker](): true {
    return true;
  }

  static override isInstance(error: unknown): error is CodecKeyError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
