import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';
import type { Redactor } from './redactor';

/**
 * `logger` with every message and every string in its metadata redacted.
 * Give it to `Runtime.install` so the worker's own lines (an activity's
 * failure, the Rust core's warnings) cannot print a configured secret.
 */
export function redactingLogger(logger: Logger, redact: Redactor): Logger {
  const meta = (metadata: LogMetadata | undefined) => (metadata === undefined ? undefined : redact.value(metadata));
  return {
    log: (level: LogLevel, message: string, metadata?: LogMetadata) =>
      logger.log(level, redact(message), meta(metadata)),
    trace: (message: string, metadata?: LogMetadata) => logger.trace(redact(message), meta(metadata)),
    debug: (message: string, metadata?: LogMetadata) => logger.debug(redact(message), meta(metadata)),
    info: (message: string, metadata?: LogMetadata) => logger.info(redact(message), meta(metadata)),
    warn: (message: string, metadata?: LogMetadata) => logger.warn(redact(message), meta(metadata)),
    error: (message: string, metadata?: LogMetadata) => logger.error(redact(message), meta(metadata)),
  };
}
