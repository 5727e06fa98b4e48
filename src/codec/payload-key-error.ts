import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.PayloadKeyError');

/**
 * A payload encrypted with a key this process does not hold, or that does not open with the key of its id. The
 * message names the key id (never key material) and what to do. A workflow task that meets it fails and is retried
 * by Temporal, so the run waits, unharmed, until a worker that holds the key picks it up.
 */
export class PayloadKeyError extends AgentRunnerError {
  override readonly name = 'PayloadKeyError';

  private get [marker](): true {
    return true;
  }

  constructor(
    message: string,
    readonly keyId: string,
  ) {
    super(message);
  }

  static override isInstance(error: unknown): error is PayloadKeyError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
