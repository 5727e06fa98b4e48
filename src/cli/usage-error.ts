import { AgentRunnerError } from '../shared/agent-runner-error';

const marker = Symbol.for('agent-runner.error.UsageError');

/**
 * The command line itself is wrong (a bad option value, an unreadable
 * `--input`): exit code 2, each problem on its own line, before anything is
 * sent to Temporal.
 */
export class UsageError extends AgentRunnerError {
  override readonly name = 'UsageError';

  private get [marker](): true {
    return true;
  }

  readonly problems: string[];

  constructor({ problems }: { problems: string[] }) {
    super(problems.join('; '));
    this.problems = problems;
  }

  static override isInstance(error: unknown): error is UsageError {
    return AgentRunnerError.hasMarker(error, marker);
  }
}
