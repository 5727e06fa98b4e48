import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import type { ToolCall } from '../../src/shared/messages';
import { describeToolFailure, summarizeToolCall, unknownToolResult } from '../../src/workflows/agent/tool-results';

const callWithArguments = (argumentText: string): ToolCall => ({
  id: 'call_1',
  type: 'function',
  function: { name: 'write_file', arguments: argumentText },
});

const activityFailure = (cause: Error): ActivityFailure =>
  new ActivityFailure(
    'Activity task failed',
    'executeTool',
    '7',
    RetryState.MAXIMUM_ATTEMPTS_REACHED,
    'worker-1',
    cause,
  );

describe('unknownToolResult', () => {
  test('is an error naming the tool and the allowed ones', () => {
    expect(unknownToolResult('delete_all', ['calculator', 'read_file'])).toEqual({
      content: 'Error: there is no tool named "delete_all". Available tools: calculator, read_file.',
      isError: true,
      terminate: false,
    });
  });

  test('says "none" when no tools are allowed', () => {
    expect(unknownToolResult('calculator', []).content).toBe(
      'Error: there is no tool named "calculator". Available tools: none.',
    );
  });
});

describe('summarizeToolCall', () => {
  test('shows name, arguments and iteration', () => {
    expect(summarizeToolCall(callWithArguments('{"path":"a.md"}'), 3)).toBe('write_file {"path":"a.md"} · iteration 3');
  });

  test('collapses whitespace runs and trims the arguments', () => {
    expect(summarizeToolCall(callWithArguments('  {\n  "path":\t"a.md"\n}  '), 1)).toBe(
      'write_file { "path": "a.md" } · iteration 1',
    );
  });

  test('keeps arguments of exactly 80 characters whole', () => {
    const argumentText = 'x'.repeat(80);

    expect(summarizeToolCall(callWithArguments(argumentText), 2)).toBe(`write_file ${argumentText} · iteration 2`);
  });

  test('cuts longer arguments to 79 characters and an ellipsis', () => {
    const argumentText = 'y'.repeat(81);

    expect(summarizeToolCall(callWithArguments(argumentText), 2)).toBe(`write_file ${'y'.repeat(79)}… · iteration 2`);
  });
});

describe('describeToolFailure', () => {
  test('an activity timeout names the timeout type', () => {
    const error = activityFailure(new TimeoutFailure(undefined, undefined, 'START_TO_CLOSE'));

    expect(describeToolFailure('read_file', error)).toBe(
      'tool "read_file" did not finish before its deadline (START_TO_CLOSE)',
    );
  });

  test('an application failure inside an activity failure gives its message', () => {
    const error = activityFailure(ApplicationFailure.create({ message: 'disk full', type: 'IOError' }));

    expect(describeToolFailure('write_file', error)).toBe('tool "write_file" failed: disk full');
  });

  test('attempts lost until the deadline (ToolCall.Lost) did not finish: the tool did not fail', () => {
    const error = activityFailure(
      ApplicationFailure.retryable(
        'MCP server "files" closed its connection during the call of "read"',
        'ToolCall.Lost',
      ),
    );

    expect(describeToolFailure('files__read', error)).toBe(
      'tool "files__read" did not finish before its deadline (every attempt was lost: ' +
        'MCP server "files" closed its connection during the call of "read")',
    );
  });

  test('a bare application failure gives its message', () => {
    expect(describeToolFailure('write_file', ApplicationFailure.retryable('quota hit'))).toBe(
      'tool "write_file" failed: quota hit',
    );
  });

  test('a plain error gives its message', () => {
    expect(describeToolFailure('calculator', new RangeError('too big'))).toBe('tool "calculator" failed: too big');
  });

  test('a non-error value is stringified', () => {
    expect(describeToolFailure('calculator', 42)).toBe('tool "calculator" failed: 42');
  });
});
