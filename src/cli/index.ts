import { CommanderError } from 'commander';
import { reportError } from './error-report';
import { ExitCode } from './exit-codes';
import { createProgram } from './program';

/**
 * Entry point of `agent-runner` (bin/agent-runner.js, `npm run cli`): runs
 * one command and exits with its code. Errors are printed as messages,
 * never stacks: the operator needs to know what to do, not where it broke.
 */
async function main(argv: string[]): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const program = createProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    // Commander has already printed its message (or the help); help and --version end well, the rest are usage errors.
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    const report = reportError(error);
    for (const line of report.lines) process.stderr.write(`${line}\n`);
    return report.code;
  }
}

/** Exits once both streams have taken everything written to them. */
async function exitAfterFlush(code: number): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))),
  );
  process.exit(code);
}

main(process.argv).then(exitAfterFlush, async (error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  await exitAfterFlush(ExitCode.unexpected);
});
