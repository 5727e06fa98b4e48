/**
 * The command line itself is wrong (a bad option value, an unreadable
 * `--input`): exit code 2, each problem on its own line, before anything is
 * sent to Temporal.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly problems: string[];

  constructor({ problems }: { problems: string[] }) {
    super(problems.join('; '));
    this.problems = problems;
  }
}
