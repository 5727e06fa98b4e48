import type { RunOutcome } from '../run-control';

/**
 * The command-line tool's exit codes. Scripts branch on them, so each one
 * means one thing across every command, and `--help` lists them.
 */
export const ExitCode = {
  /** The run completed, or the command did what it was asked. */
  ok: 0,
  /** The run failed. */
  runFailed: 1,
  /** The command line or the run's input is wrong; every problem is printed. */
  usage: 2,
  /** The run was stopped from outside (the `terminate` signal, or Temporal itself). */
  runTerminated: 3,
  /** No such run, or the run refused the request (a rejected decision, a run that has ended). */
  refused: 4,
  /** Temporal could not be reached, or something else went wrong that the operator cannot fix by retyping. */
  unexpected: 5,
  /** Following stopped on Ctrl-C while the run goes on: the shell's usual status for an interrupted command. */
  interrupted: 130,
} as const;
/** One of {@link ExitCode}'s values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit-code table shown at the end of every `--help`. */
export const EXIT_CODES_HELP = [
  'Exit codes:',
  '  0    the run completed, or the command succeeded',
  '  1    the run failed',
  '  2    usage error or invalid input (each problem is printed; also when the worker refuses the input)',
  '  3    the run was terminated (stopped from outside)',
  '  4    not found or refused: unknown run, rejected decision, run already ended, run id already taken',
  '  5    could not reach Temporal, or another unexpected error',
  '  130  stopped following on Ctrl-C; the run goes on',
].join('\n');

/**
 * How a followed run's end maps to an exit code. A run the worker failed as
 * `InvalidAgentInput` (an unknown tool, say) counts as invalid input: the
 * operator fixes the command line, not the run.
 */
export function exitCodeForOutcome(outcome: RunOutcome): ExitCode {
  switch (outcome.kind) {
    case 'completed':
      return ExitCode.ok;
    case 'terminated':
      return ExitCode.runTerminated;
    case 'failed':
      return outcome.type === 'InvalidAgentInput' ? ExitCode.usage : ExitCode.runFailed;
  }
}
