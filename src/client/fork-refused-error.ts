import { AgentRunnerError } from '../shared/agent-runner-error';
import type { ForkRefusal } from './fork-refusal';

const marker = Symbol.for('agent-runner.error.ForkRefusedError');

/** A fork the runner refused before starting it, so no run fails later; the message says what would be accepted. */
export class ForkRefusedError extends AgentRunnerError {
  override readonly name = 'ForkRefusedError';

  private get [marker](): true {
    return true;
  }

  constructor(
    readonly refusal: ForkRefusal,
    message: string,
    /** For `input`: one line per problem of the edited input. */
    readonly problems: string[] = [],
  ) {
    super(message);
  }

  static override isInstance(error: unknown): error is ForkRefusedError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
