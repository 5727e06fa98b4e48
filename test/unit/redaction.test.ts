import { ApplicationFailure } from '@temporalio/common';
import type { Logger, LogLevel, LogMetadata } from '@temporalio/common';
import {
  createRedactor,
  maskUrlCredentials,
  redactFailure,
  redactingLogger,
  urlCredentials,
  urlCredentialsProblem,
} from '../../src/redaction';

const KEY = 'sk-live-1234567890abcdef';
const TOKEN = 'api-token-0123456789';

describe('createRedactor', () => {
  test('replaces every occurrence of every secret', () => {
    const redact = createRedactor([KEY, TOKEN]);

    expect(redact(`key ${KEY}, token ${TOKEN}, key again ${KEY}.`)).toBe(
      'key [redacted], token [redacted], key again [redacted].',
    );
    expect(redact.active).toBe(true);
  });

  test('ignores unset, empty and short secrets, so ordinary text is not mangled', () => {
    const redact = createRedactor([undefined, '', 'abc', '12345']);

    expect(redact.active).toBe(false);
    expect(redact('abc 12345 abcdef')).toBe('abc 12345 abcdef');
  });

  test('a secret of exactly six characters is redacted', () => {
    expect(createRedactor(['s3cr3t'])('x s3cr3t y')).toBe('x [redacted] y');
  });

  test('finds a secret in its JSON-escaped and URL-encoded forms', () => {
    const secret = 'pa"ss/word+1';
    const redact = createRedactor([secret]);

    expect(redact(JSON.stringify({ password: secret }))).toBe('{"password":"[redacted]"}');
    expect(redact(`https://example.com/?p=${encodeURIComponent(secret)}`)).toBe('https://example.com/?p=[redacted]');
  });

  test('the longest secret wins, so one that contains another is hidden whole', () => {
    const redact = createRedactor(['abcdef', 'abcdefghijkl']);

    expect(redact('abcdefghijkl')).toBe('[redacted]');
  });

  test('characters with a meaning in regular expressions are taken literally', () => {
    const redact = createRedactor(['a.b*c+d?(e)[f]']);

    expect(redact('a.b*c+d?(e)[f] and aXbbcd')).toBe('[redacted] and aXbbcd');
  });

  test('value() copies nested objects, arrays and errors with every string redacted, leaving the original alone', () => {
    const redact = createRedactor([KEY]);
    const cause = new Error(`inner ${KEY}`);
    const error = new TypeError(`outer ${KEY}`, { cause });
    const symbol = Symbol('timestamp');
    const meta = { message: `with ${KEY}`, list: [KEY, 3, null], nested: { error }, count: 2, [symbol]: 42n };

    const copy = redact.value(meta);

    expect(copy.message).toBe('with [redacted]');
    expect(copy.list).toEqual(['[redacted]', 3, null]);
    expect(copy.count).toBe(2);
    expect(copy[symbol]).toBe(42n);
    expect(copy.nested.error).toBeInstanceOf(TypeError);
    expect(copy.nested.error.message).toBe('outer [redacted]');
    expect(copy.nested.error.stack).not.toContain(KEY);
    expect((copy.nested.error.cause as Error).message).toBe('inner [redacted]');
    expect(meta.message).toBe(`with ${KEY}`);
    expect(error.message).toBe(`outer ${KEY}`);
  });

  test('value() survives cycles', () => {
    const redact = createRedactor([KEY]);
    const looped: { name: string; self?: unknown } = { name: KEY };
    looped.self = looped;

    const copy = redact.value(looped);

    expect(copy.name).toBe('[redacted]');
    expect(copy.self).toBe(copy);
  });
});

describe('redactFailure', () => {
  test('an ApplicationFailure keeps its class, type and retry settings; message, stack, details and cause are redacted', () => {
    const redact = createRedactor([KEY]);
    const failure = ApplicationFailure.create({
      type: 'ModelCall.Unauthorized',
      message: `401: Incorrect API key provided: ${KEY}.`,
      nonRetryable: true,
      nextRetryDelay: 1500,
      details: [{ echoed: KEY }],
      cause: new Error(`cause ${KEY}`),
    });

    const redacted = redactFailure(failure, redact);

    expect(redacted).toBe(failure);
    expect(redacted).toBeInstanceOf(ApplicationFailure);
    expect(redacted.type).toBe('ModelCall.Unauthorized');
    expect(redacted.nonRetryable).toBe(true);
    expect(redacted.nextRetryDelay).toBe(1500);
    expect(redacted.message).toBe('401: Incorrect API key provided: [redacted].');
    expect(redacted.details).toEqual([{ echoed: '[redacted]' }]);
    expect(redacted.cause?.message).toBe('cause [redacted]');
    expect(redacted.stack).toContain('Incorrect API key provided: [redacted].');
    expect(JSON.stringify({ ...redacted, stack: redacted.stack, message: redacted.message })).not.toContain(KEY);
  });

  test('a thrown value that is not an Error comes back redacted', () => {
    expect(redactFailure(`plain ${KEY}`, createRedactor([KEY]))).toBe('plain [redacted]');
  });

  test('without secrets the failure is returned untouched', () => {
    const error = new Error('nothing secret');
    expect(redactFailure(error, createRedactor([]))).toBe(error);
  });
});

describe('redactingLogger', () => {
  test('every level and log() redact the message and every string in the metadata', () => {
    const lines: { level: LogLevel; message: string; meta?: LogMetadata }[] = [];
    const capture: Logger = {
      log: (level, message, meta) => lines.push({ level, message, meta }),
      trace: (message, meta) => lines.push({ level: 'TRACE', message, meta }),
      debug: (message, meta) => lines.push({ level: 'DEBUG', message, meta }),
      info: (message, meta) => lines.push({ level: 'INFO', message, meta }),
      warn: (message, meta) => lines.push({ level: 'WARN', message, meta }),
      error: (message, meta) => lines.push({ level: 'ERROR', message, meta }),
    };
    const logger = redactingLogger(capture, createRedactor([KEY]));

    logger.log('INFO', `log ${KEY}`, { error: new Error(`failed with ${KEY}`) });
    logger.trace(`trace ${KEY}`);
    logger.debug(`debug ${KEY}`, { nested: { deeper: [KEY] } });
    logger.info(`info ${KEY}`);
    logger.warn(`warn ${KEY}`, { activityType: 'callModel', attempt: 2 });
    logger.error(`error ${KEY}`);

    expect(lines.map((line) => `${line.level} ${line.message}`)).toEqual([
      'INFO log [redacted]',
      'TRACE trace [redacted]',
      'DEBUG debug [redacted]',
      'INFO info [redacted]',
      'WARN warn [redacted]',
      'ERROR error [redacted]',
    ]);
    expect((lines[0]?.meta?.error as Error).message).toBe('failed with [redacted]');
    expect(lines[2]?.meta).toEqual({ nested: { deeper: ['[redacted]'] } });
    expect(lines[4]?.meta).toEqual({ activityType: 'callModel', attempt: 2 });
    expect(lines[1]?.meta).toBeUndefined();
  });
});

describe('URL credentials', () => {
  test('urlCredentials gives the user name and password, as written and decoded', () => {
    expect(urlCredentials('https://user:p%40ss@example.com/v1')).toEqual(['user', 'p%40ss', 'p@ss']);
    expect(urlCredentials('https://example.com/v1')).toEqual([]);
    expect(urlCredentials('not a url')).toEqual([]);
  });

  test('maskUrlCredentials hides whatever stands before the @, in valid and invalid URLs alike', () => {
    expect(maskUrlCredentials('https://user:pass@example.com/v1')).toBe('https://***@example.com/v1');
    expect(maskUrlCredentials('ftp://user:pa@ss word@host')).toBe('ftp://***@ss word@host');
    expect(maskUrlCredentials('http://u:p@h:1 and https://x:y@z/a@b')).toBe('http://***@h:1 and https://***@z/a@b');
    expect(maskUrlCredentials('http://localhost:11434/v1')).toBe('http://localhost:11434/v1');
  });

  test('urlCredentialsProblem names the variable and never prints the credentials', () => {
    const problem = urlCredentialsProblem('OPENAI_BASE_URL', 'https://alice:hunter2-secret@llm.internal/v1');

    expect(problem).toContain('OPENAI_BASE_URL="https://***@llm.internal/v1" has credentials in it');
    expect(problem).toContain('OPENAI_API_KEY');
    expect(problem).not.toContain('hunter2-secret');
    expect(problem).not.toContain('alice');
    expect(urlCredentialsProblem('OPENAI_BASE_URL', 'https://llm.internal/v1')).toBeUndefined();
  });
});
