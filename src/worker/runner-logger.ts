import { DefaultLogger, type LogLevel } from '@temporalio/worker';
import { createRedactor, redactingLogger } from '../redaction';
import { withQuietRunFailures } from './log-filter';

/**
 * The logger a process that runs the worker installs: the SDK's own at
 * `level`, a run that fails by the runner's rules logged as one line, and no
 * configured secret in any line (a provider may echo the key in an error).
 */
export function runnerLogger(level: LogLevel, secrets: readonly string[]) {
  return redactingLogger(withQuietRunFailures(new DefaultLogger(level)), createRedactor(secrets));
}
