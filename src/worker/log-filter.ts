import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';

/** What the SDK logs, at WARN with the error and its stack, whenever a workflow function throws. */
const WORKFLOW_FAILED = 'Workflow failed';

/**
 * `logger`, with the SDK's `Workflow failed` warning made one INFO line without a stack when the workflow threw an
 * `ApplicationFailure` (a run ended by its own rules, `src/shared/failure-catalogue.ts`); other errors keep theirs.
 * Every `ApplicationFailure` counts, since the structured clone that reaches the logger drops its `type`.
 */
export function withQuietRunFailures(logger: Logger): Logger {
  /** Passes the entry on, unless it is a deliberate failure's warning, which goes on quietly. */
  const quietened = (level: LogLevel, message: string, meta: LogMetadata | undefined): boolean => {
    if (level !== 'WARN' || message !== WORKFLOW_FAILED || meta === undefined) return false;
    const failure = describeDeliberateFailure(meta.error);
    if (failure === undefined) return false;
    const rest = { ...meta };
    delete rest.error;
    logger.info(`${WORKFLOW_FAILED} by its own rules: ${failure}`, rest);
    return true;
  };
  return {
    log: (level, message, meta) => {
      if (!quietened(level, message, meta)) logger.log(level, message, meta);
    },
    trace: (message, meta) => logger.trace(message, meta),
    debug: (message, meta) => logger.debug(message, meta),
    info: (message, meta) => logger.info(message, meta),
    warn: (message, meta) => {
      if (!quietened('WARN', message, meta)) logger.warn(message, meta);
    },
    error: (message, meta) => logger.error(message, meta),
  };
}

/**
 * `ApplicationFailure: <message>` (with its type when it is still there),
 * or undefined when `error` is not an `ApplicationFailure`. A cloned error
 * is named `Error`; the first line of its stack keeps the real name.
 */
export function describeDeliberateFailure(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, message, stack, type } = error as {
    name?: unknown;
    message?: unknown;
    stack?: unknown;
    type?: unknown;
  };
  const text = typeof message === 'string' ? firstLine(message) : '';
  if (name === 'ApplicationFailure')
    return typeof type === 'string' ? `ApplicationFailure (${type}): ${text}` : `ApplicationFailure: ${text}`;
  if (typeof stack === 'string' && stack.startsWith('ApplicationFailure: ')) return `ApplicationFailure: ${text}`;
  return undefined;
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end === -1 ? text : `${text.slice(0, end)} …`;
}
