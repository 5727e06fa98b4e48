import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../src/cli/usage-error';
import { McpServerUnavailableError } from '../../src/mcp/mcp-server-unavailable-error';
import { AgentRunnerError } from '../../src/shared/agent-runner-error';
import { RetryableToolError } from '../../src/tools/retryable-tool-error';
import { ToolCallLostError } from '../../src/tools/tool-call-lost-error';

/**
 * Every error class in src/ follows one convention: alone in its file, named `...Error`, under `AgentRunnerError`,
 * with a marker of its own that its `static isInstance` checks, so the check holds across copies of the package.
 */
const root = path.join(__dirname, '..', '..');
const basePath = path.join(root, 'src/shared/agent-runner-error.ts');
const CLASS = /^export (?:abstract )?class (\w+) extends (\w+)\b/gm;

type ErrorClass = (abstract new (...args: never[]) => Error) & { isInstance(error: unknown): boolean };

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Every class in src/ that extends `Error` or `AgentRunnerError`, with its file. */
const errorClasses = sourceFiles(path.join(root, 'src')).flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(CLASS)]
    .filter((match) => match[2] === 'Error' || match[2] === 'AgentRunnerError')
    .map((match) => ({ file, name: match[1] ?? '', base: match[2], text }));
});
const subclasses = errorClasses.filter((found) => found.file !== basePath);

function load(file: string, name: string): ErrorClass {
  return jest.requireActual<Record<string, ErrorClass>>(file)[name] as ErrorClass;
}

describe('the error convention', () => {
  it('finds every error class of src/', () => {
    expect(subclasses.length).toBeGreaterThanOrEqual(26);
  });

  it('has AgentRunnerError as the only class that extends Error', () => {
    expect(errorClasses.filter((found) => found.base === 'Error').map((found) => found.name)).toEqual([
      'AgentRunnerError',
    ]);
  });

  it.each(subclasses.map((found) => [found.name, found] as const))(
    '%s is alone in its file, ends in Error, and checks its own marker',
    (name, found) => {
      expect(name).toMatch(/Error$/);
      expect([...found.text.matchAll(/^export (?:abstract )?class /gm)]).toHaveLength(1);
      expect(found.text).toContain(`Symbol.for('agent-runner.error.${name}')`);
      expect(found.text).toContain(`static override isInstance(error: unknown): error is ${name} {`);
    },
  );

  it.each(subclasses.map((found) => [found.name, found.file] as const))(
    "%s.isInstance accepts its own kind only, and AgentRunnerError's accepts it",
    (name, file) => {
      const ErrorType = load(file, name);
      const made: unknown = Object.create(ErrorType.prototype);
      expect(ErrorType.isInstance(made)).toBe(true);
      expect(AgentRunnerError.isInstance(made)).toBe(true);
      expect(ErrorType.isInstance(new Error(name))).toBe(false);
      const others = subclasses.filter((other) => other.name !== name);
      const accepting = others.filter((other) => load(other.file, other.name).isInstance(made));
      expect(accepting.map((other) => other.name)).toEqual([]);
    },
  );

  it('holds for an error from a second copy of the module, where instanceof does not', () => {
    let Copy: typeof RetryableToolError | undefined;
    jest.isolateModules(() => {
      Copy = jest.requireActual<{ RetryableToolError: typeof RetryableToolError }>(
        path.join(root, 'src/tools/retryable-tool-error.ts'),
      ).RetryableToolError;
    });
    if (Copy === undefined) throw new Error('the second copy did not load');
    expect(Copy).not.toBe(RetryableToolError);
    const fromCopy = new Copy('try again');
    expect(fromCopy instanceof RetryableToolError).toBe(false);
    expect(RetryableToolError.isInstance(fromCopy)).toBe(true);
    expect(AgentRunnerError.isInstance(fromCopy)).toBe(true);
  });

  it('answers false, not a throw, for values that cannot be asked', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no');
        },
      },
    );
    for (const value of [hostile, null, undefined, 'RetryableToolError', 42, { name: 'AgentRunnerError' }])
      expect(AgentRunnerError.isInstance(value)).toBe(false);
  });

  it('keeps the mark out of what a logged error shows', () => {
    const error = new UsageError({ problems: ['--input: unreadable'] });
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(UsageError.isInstance(error)).toBe(true);
  });
  it('keeps the names that histories record for the renamed classes', () => {
    expect(new ToolCallLostError('lost').name).toBe('ToolCallLost');
    expect(new McpServerUnavailableError('files', 'down').name).toBe('McpServerUnavailable');
  });
});
