import {
  ActivityFailure,
  ApplicationFailure,
  RetryState,
  type LogLevel,
  type LogMetadata,
  type Logger,
} from '@temporalio/common';
import {
  FailureType,
  invalidAgentInput,
  maxConsecutiveNudgesExceeded,
  maxInvocationsExceeded,
  partialRun,
} from '../../src/workflows/agent/failures';
import { describeDeliberateFailure, withQuietRunFailures } from '../../src/worker/log-filter';

/**
 * The SDK logs `Workflow failed` at WARN with the error and its stack
 * whenever a workflow function throws. The filter makes a run's own
 * documented failure one INFO line without a stack; anything else passes
 * on untouched.
 */
interface Entry {
  level: LogLevel;
  message: string;
  meta?: LogMetadata;
}

/** A logger that records what reaches it, by whichever method. */
function capturingLogger(): { logger: Logger; entries: Entry[] } {
  const entries: Entry[] = [];
  const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => {
    entries.push({ level, message, ...(meta === undefined ? {} : { meta }) });
  };
  const logger: Logger = {
    log: (level, message, meta) => at(level)(message, meta),
    trace: at('TRACE'),
    debug: at('DEBUG'),
    info: at('INFO'),
    warn: at('WARN'),
    error: at('ERROR'),
  };
  return { logger, entries };
}

const runAttributes = {
  sdkComponent: 'worker',
  namespace: 'default',
  taskQueue: 'q',
  workflowId: 'demo-1',
  runId: 'run-1',
  workflowType: 'agentWorkflow',
};
const partial = partialRun([], { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, 2);

/** The error as the worker's logger receives it from the workflow thread: a structured clone, named `Error`, without `type`. */
const acrossThreads = (error: Error): Error => structuredClone(error);

describe('withQuietRunFailures', () => {
  test.each([
    [
      FailureType.maxConsecutiveNudgesExceeded,
      maxConsecutiveNudgesExceeded(1, partial),
      'Max consecutive nudges exceeded',
    ],
    [FailureType.maxInvocationsExceeded, maxInvocationsExceeded(3, partial), 'Max invocations exceeded'],
    [FailureType.invalidInput, invalidAgentInput(['message: required']), 'Invalid agent input: message: required'],
  ])(
    'a run failed with %s, as it arrives from the workflow thread: one INFO line, no error, no stack',
    (_type, failure, message) => {
      const { logger, entries } = capturingLogger();

      withQuietRunFailures(logger).warn('Workflow failed', { ...runAttributes, error: acrossThreads(failure) });

      expect(entries).toEqual([
        {
          level: 'INFO',
          message: `Workflow failed by its own rules: ApplicationFailure: ${message}`,
          meta: runAttributes,
        },
      ]);
    },
  );

  test('the same failure still holding its type (a worker in debug mode runs workflows in-thread) names the type', () => {
    const { logger, entries } = capturingLogger();

    withQuietRunFailures(logger).warn('Workflow failed', {
      ...runAttributes,
      error: maxConsecutiveNudgesExceeded(1, partial),
    });

    expect(entries).toEqual([
      {
        level: 'INFO',
        message:
          'Workflow failed by its own rules: ApplicationFailure (MaxConsecutiveNudgesExceeded): Max consecutive nudges exceeded',
        meta: runAttributes,
      },
    ]);
  });

  test('through log(level, ...) as well as warn(...)', () => {
    const { logger, entries } = capturingLogger();

    withQuietRunFailures(logger).log('WARN', 'Workflow failed', {
      ...runAttributes,
      error: acrossThreads(maxInvocationsExceeded(3, partial)),
    });

    expect(entries).toEqual([
      {
        level: 'INFO',
        message: 'Workflow failed by its own rules: ApplicationFailure: Max invocations exceeded',
        meta: runAttributes,
      },
    ]);
  });

  test.each([
    ['a bug (a plain TypeError)', new TypeError("Cannot read properties of undefined (reading 'length')")],
    [
      'an activity failure left uncaught',
      new ActivityFailure('activity failed', 'callModel', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, undefined),
    ],
  ])('%s keeps its WARN line with the error and its stack', (_what, error) => {
    const { logger, entries } = capturingLogger();
    const cloned = acrossThreads(error);

    withQuietRunFailures(logger).warn('Workflow failed', { ...runAttributes, error: cloned });

    expect(entries).toEqual([{ level: 'WARN', message: 'Workflow failed', meta: { ...runAttributes, error: cloned } }]);
    expect(String((entries[0]?.meta?.error as Error).stack)).toContain('\n    at ');
  });

  test('every other entry passes on as it came, by the same method', () => {
    const { logger, entries } = capturingLogger();
    const quiet = withQuietRunFailures(logger);
    const failure = acrossThreads(maxInvocationsExceeded(3, partial));

    quiet.warn('Workflow task failed', { error: failure });
    quiet.error('Workflow failed', { error: failure });
    quiet.info('Worker state changed', { state: 'RUNNING' });
    quiet.debug('Workflow completed');
    quiet.trace('poll');
    quiet.log('WARN', 'something else');

    expect(entries).toEqual([
      { level: 'WARN', message: 'Workflow task failed', meta: { error: failure } },
      { level: 'ERROR', message: 'Workflow failed', meta: { error: failure } },
      { level: 'INFO', message: 'Worker state changed', meta: { state: 'RUNNING' } },
      { level: 'DEBUG', message: 'Workflow completed' },
      { level: 'TRACE', message: 'poll' },
      { level: 'WARN', message: 'something else' },
    ]);
  });
});

describe('describeDeliberateFailure', () => {
  test('a multi-line message is kept to its first line', () => {
    expect(
      describeDeliberateFailure(
        acrossThreads(ApplicationFailure.create({ message: 'first\nsecond', nonRetryable: true })),
      ),
    ).toBe('ApplicationFailure: first …');
  });

  test.each([undefined, null, 'ApplicationFailure: a string', { stack: 'Error: ApplicationFailure: not one' }])(
    '%p is not one',
    (value) => {
      expect(describeDeliberateFailure(value)).toBeUndefined();
    },
  );
});
