import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Info } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../../src/activities';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { DEFAULT_TERMINATE_MESSAGE } from '../../src/shared/defaults/run-input';
import { type AgentActivities, type ToolCallInput, type ToolCallResult } from '../../src/shared/activity-types';
import { createBuiltinTools } from '../../src/tools/builtin';
import { defineTool, type ToolContext } from '../../src/tools/define-tool';
import { RetryableToolError } from '../../src/tools/retryable-tool-error';
import { TerminateResponse } from '../../src/tools/terminate-response';
import { createToolRegistry } from '../../src/tools/tool-registry';
import { rejectionOf, waitUntil } from '../helpers/promises';

/**
 * The `executeTool` activity in Temporal's mock activity environment, with
 * the built-in tools (file tools in a temporary workspace) and small test tools.
 */

/** Arguments each call of `record_arguments` received. */
const recordedArguments: unknown[] = [];
const recordArgumentsTool = defineTool({
  name: 'record_arguments',
  description: 'Records the arguments it was called with.',
  parameters: z.object({ label: z.string().default('unlabelled') }),
  execute: (args) => {
    recordedArguments.push(args);
    return `recorded ${args.label}`;
  },
});

let scheduleMeetingExecutions = 0;
const scheduleMeetingTool = defineTool({
  name: 'schedule_meeting',
  description: 'Schedules a meeting.',
  parameters: z.object({
    title: z.string().min(1),
    attendees: z.array(z.object({ email: z.email() })).min(1),
    durationMinutes: z.number().int().positive(),
  }),
  execute: ({ title }) => {
    scheduleMeetingExecutions += 1;
    return `scheduled ${title}`;
  },
});

const circularTool = defineTool({
  name: 'circular',
  description: 'Returns an object JSON cannot hold.',
  parameters: z.object({}),
  execute: () => {
    const looped: Record<string, unknown> = {};
    looped.self = looped;
    return looped;
  },
});
const explodeTool = defineTool({
  name: 'explode',
  description: 'Always throws an ordinary error.',
  parameters: z.object({}),
  execute: () => {
    throw new Error('boom');
  },
});

const rejectWithStringTool = defineTool({
  name: 'reject_with_string',
  description: 'Rejects with a value that is not an Error.',
  parameters: z.object({}),
  execute: () => Promise.reject('plain string rejection'),
});

const flakyUpstreamTool = defineTool({
  name: 'flaky_upstream',
  description: 'Fails in a way worth retrying.',
  parameters: z.object({}),
  execute: () => {
    throw new RetryableToolError('the upstream is busy');
  },
});

/** Executions of each tool that throws something that is not an Error. */
const oddThrowExecutions = new Map<string, number>();
function oddThrowTool(name: string, thrown: () => unknown) {
  return defineTool({
    name,
    description: 'Throws a value that is not an Error.',
    parameters: z.object({}),
    execute: () => {
      oddThrowExecutions.set(name, (oddThrowExecutions.get(name) ?? 0) + 1);
      throw thrown();
    },
  });
}
const oddThrowTools = [
  oddThrowTool('throw_null_prototype', () => Object.create(null) as unknown),
  oddThrowTool('throw_bad_to_string', () => ({
    toString() {
      throw new Error('toString itself throws');
    },
  })),
  oddThrowTool('throw_message_getter', () =>
    Object.defineProperty(new Error('unused'), 'message', {
      get() {
        throw new Error('the message getter throws');
      },
    }),
  ),
  oddThrowTool('throw_undefined', () => undefined),
  oddThrowTool('throw_symbol', () => Symbol('odd')),
];

/** Signals the `sleepy` tool saw, and whether each fired. */
const sleepySignals: AbortSignal[] = [];
const sleepyTool = defineTool({
  name: 'sleepy',
  description: 'Takes five seconds and does not listen to its signal.',
  parameters: z.object({}),
  execute: async (_args, { signal }) => {
    sleepySignals.push(signal);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    return 'woke up';
  },
});
const refusingSchemaTool = defineTool({
  name: 'parse_url',
  description: 'Its schema throws on a bad URL instead of reporting an issue.',
  parameters: z.object({ url: z.string().refine((url) => Boolean(new URL(url))) }),
  execute: ({ url }) => url,
});
const oddTerminateTool = defineTool({
  name: 'odd_terminate',
  description: 'Ends the run with a message that is not text (plain JavaScript can).',
  parameters: z.object({}),
  execute: () => new TerminateResponse(10n as unknown as string),
});

const endWithMessageTool = defineTool({
  name: 'end_with_message',
  description: 'Ends the run with a message.',
  parameters: z.object({}),
  execute: () => new TerminateResponse('All invoices filed.'),
});

const endSilentlyTool = defineTool({
  name: 'end_silently',
  description: 'Ends the run without a message.',
  parameters: z.object({}),
  execute: () => new TerminateResponse(),
});

const reportObjectTool = defineTool({
  name: 'report_object',
  description: 'Returns a structured value.',
  parameters: z.object({}),
  execute: () => ({ total: 3, items: ['a', 'b'], nested: { ok: true } }),
});

const reportNumberTool = defineTool({
  name: 'report_number',
  description: 'Returns a number.',
  parameters: z.object({}),
  execute: () => 42,
});

/** Every context `inspect_context` was given. */
const observedContexts: ToolContext[] = [];
const inspectContextTool = defineTool({
  name: 'inspect_context',
  description: 'Records its tool context.',
  parameters: z.object({}),
  execute: (_args, context) => {
    observedContexts.push(context);
    return 'inspected';
  },
});

/** The signal of each `wait_for_cancellation` call, once it is running. */
const waitingToolSignals: AbortSignal[] = [];
const waitForCancellationTool = defineTool({
  name: 'wait_for_cancellation',
  description: 'Waits until its call is cancelled, at most ten seconds.',
  parameters: z.object({}),
  execute: (_args, context) =>
    new Promise<string>((resolve, reject) => {
      waitingToolSignals.push(context.signal);
      const timer = setTimeout(() => resolve('finished without being cancelled'), 10_000);
      context.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(context.signal.reason);
        },
        { once: true },
      );
    }),
});

/** The signal of each `fail_after_cancellation` call, once it is running. */
const failingAfterCancellationSignals: AbortSignal[] = [];
const failAfterCancellationTool = defineTool({
  name: 'fail_after_cancellation',
  description: 'Throws an ordinary error once its call is cancelled.',
  parameters: z.object({}),
  execute: (_args, context) =>
    new Promise<string>((resolve, reject) => {
      failingAfterCancellationSignals.push(context.signal);
      const timer = setTimeout(() => resolve('finished without being cancelled'), 10_000);
      context.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(new Error('interrupted while writing'));
        },
        { once: true },
      );
    }),
});

const testTools = [
  recordArgumentsTool,
  scheduleMeetingTool,
  explodeTool,
  rejectWithStringTool,
  flakyUpstreamTool,
  endWithMessageTool,
  endSilentlyTool,
  reportObjectTool,
  reportNumberTool,
  inspectContextTool,
  waitForCancellationTool,
  failAfterCancellationTool,
];

let workspace: string;
let modelServer: ScriptedModelServer;
let activities: AgentActivities;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'tool-execution-test-'));
  await writeFile(path.join(workspace, 'hello.txt'), 'hello', 'utf8');
  modelServer = await ScriptedModelServer.start();
  activities = createActivities({
    registry: createToolRegistry([
      ...createBuiltinTools({ workspace }),
      ...testTools,
      ...oddThrowTools,
      sleepyTool,
      refusingSchemaTool,
      oddTerminateTool,
      circularTool,
    ]),
    model: { baseURL: modelServer.baseURL, apiKey: 'test', defaultModel: 'unused-by-tool-tests' },
  });
});

afterAll(async () => {
  await modelServer.close();
  await rm(workspace, { recursive: true, force: true });
});

/** A fresh environment per test: a cancelled environment stays cancelled. Warnings of failed activities are muted. */
function newEnvironment(info?: Partial<Info>): MockActivityEnvironment {
  // The mock's own start-to-close timeout is 1 s, which the activity would enforce on the slower test tools.
  return new MockActivityEnvironment(
    { startToCloseTimeoutMs: 60_000, ...info },
    { logger: new DefaultLogger('ERROR') },
  );
}

function toolCall(toolName: string, argumentsText: string, overrides: Partial<ToolCallInput> = {}): ToolCallInput {
  return { toolName, callId: `call_${toolName}`, arguments: argumentsText, allowedTools: [toolName], ...overrides };
}

function executeTool(
  input: ToolCallInput,
  environment: MockActivityEnvironment = newEnvironment(),
): Promise<ToolCallResult> {
  return environment.run(activities.executeTool, input);
}

describe('executeTool: mistakes of the model come back as error results', () => {
  test('an unknown tool is answered with an error naming the available tools', async () => {
    const result = await executeTool(
      toolCall('delete_everything', '{}', { allowedTools: ['calculator', 'read_file'] }),
    );

    expect(result).toEqual({
      content: 'Error: there is no tool named "delete_everything". Available tools: calculator, read_file.',
      isError: true,
      terminate: false,
    });
  });

  test('a tool registered on the worker but not allowed for this run is treated as unknown and does not run', async () => {
    const result = await executeTool(
      toolCall('write_file', JSON.stringify({ path: 'forbidden.txt', content: 'should not be written' }), {
        allowedTools: ['calculator'],
      }),
    );

    expect(result).toEqual({
      content: 'Error: there is no tool named "write_file". Available tools: calculator.',
      isError: true,
      terminate: false,
    });
    expect(await readdir(workspace)).not.toContain('forbidden.txt');
  });

  test('empty arguments are treated as {} so schema defaults apply', async () => {
    const recordedBefore = recordedArguments.length;

    const emptyResult = await executeTool(toolCall('record_arguments', ''));
    const blankResult = await executeTool(toolCall('record_arguments', '  \n'));
    const listing = await executeTool(toolCall('list_files', ''));

    expect(emptyResult).toEqual({ content: 'recorded unlabelled', isError: false, terminate: false });
    expect(blankResult).toEqual({ content: 'recorded unlabelled', isError: false, terminate: false });
    expect(recordedArguments.slice(recordedBefore)).toEqual([{ label: 'unlabelled' }, { label: 'unlabelled' }]);
    // The built-in list_files falls back to its default path "." (the workspace root).
    expect(listing).toEqual({ content: 'hello.txt (5 bytes)', isError: false, terminate: false });
  });

  test('malformed JSON is answered with an error and the tool does not run', async () => {
    const recordedBefore = recordedArguments.length;

    const result = await executeTool(toolCall('record_arguments', '{"label": "unterminated'));

    expect(result.isError).toBe(true);
    expect(result.terminate).toBe(false);
    expect(result.content).toMatch(/^Error: the arguments for "record_arguments" are not valid JSON \(.+\)\./);
    expect(result.content).toContain("Send one JSON object that matches the tool's schema.");
    // The request carries {} in their place, so the error is where the model sees what it sent.
    expect(result.content).toContain('You sent "{\\"label\\": \\"unterminated".');
    expect(recordedArguments).toHaveLength(recordedBefore);
  });

  test('arguments failing the schema are answered with each issue and its path', async () => {
    const executionsBefore = scheduleMeetingExecutions;

    const nestedIssue = await executeTool(
      toolCall(
        'schedule_meeting',
        JSON.stringify({ title: 'Sync', attendees: [{ email: 'not-an-email' }], durationMinutes: 30 }),
      ),
    );
    const severalIssues = await executeTool(
      toolCall('schedule_meeting', JSON.stringify({ title: '', attendees: [], durationMinutes: 'thirty' })),
    );
    const notAnObject = await executeTool(toolCall('schedule_meeting', '[1, 2]'));
    const builtinMissingField = await executeTool(toolCall('calculator', '{}'));

    expect(nestedIssue).toEqual({
      content: 'Error: invalid arguments for "schedule_meeting": attendees.0.email: Invalid email address',
      isError: true,
      terminate: false,
    });
    expect(severalIssues.content).toBe(
      'Error: invalid arguments for "schedule_meeting": ' +
        'title: Too small: expected string to have >=1 characters; ' +
        'attendees: Too small: expected array to have >=1 items; ' +
        'durationMinutes: Invalid input: expected number, received string',
    );
    expect(notAnObject.content).toBe(
      'Error: invalid arguments for "schedule_meeting": arguments: Invalid input: expected object, received array',
    );
    expect(builtinMissingField).toEqual({
      content:
        'Error: invalid arguments for "calculator": expression: Invalid input: expected string, received undefined',
      isError: true,
      terminate: false,
    });
    expect(scheduleMeetingExecutions).toBe(executionsBefore);
  });
});

describe('executeTool: outputs and tool errors', () => {
  test('a string output is the content as is (built-in calculator)', async () => {
    const result = await executeTool(toolCall('calculator', '{"expression":"6 * 7"}'));

    expect(result).toEqual({ content: '42', isError: false, terminate: false });
  });

  test('a tool that throws is answered with its error message', async () => {
    const result = await executeTool(toolCall('explode', '{}'));

    expect(result).toEqual({ content: 'Error: boom', isError: true, terminate: false });
  });

  test('a tool that rejects with a non-Error value is answered with that value as text', async () => {
    const result = await executeTool(toolCall('reject_with_string', '{}'));

    expect(result).toEqual({ content: 'Error: plain string rejection', isError: true, terminate: false });
  });

  test('a built-in file tool error (path outside the workspace) is answered, not thrown', async () => {
    const result = await executeTool(toolCall('read_file', JSON.stringify({ path: '../../etc/passwd' })));

    expect(result).toEqual({
      content:
        'Error: path "../../etc/passwd" is outside the workspace; use a path relative to the workspace root (for example "notes.md").',
      isError: true,
      terminate: false,
    });
  });

  test('a RetryableToolError fails the activity with a retryable ToolCall.Retryable failure', async () => {
    const error = await rejectionOf(executeTool(toolCall('flaky_upstream', '{}')));

    expect(error).toBeInstanceOf(ApplicationFailure);
    if (!(error instanceof ApplicationFailure)) return;
    expect(error.type).toBe('ToolCall.Retryable');
    expect(error.nonRetryable).toBe(false);
    expect(error.message).toBe('the upstream is busy');
  });

  test('a RetryableToolError on the last allowed attempt answers the model instead of failing the activity', async () => {
    const result = await executeTool(toolCall('flaky_upstream', '{}'), newEnvironment({ attempt: 3 }));

    expect(result).toEqual({
      content: 'Error: the upstream is busy (gave up after 3 attempts)',
      isError: true,
      terminate: false,
    });
  });

  test.each([
    ['throw_null_prototype', 'Error: the tool threw a value that cannot be described'],
    ['throw_bad_to_string', 'Error: the tool threw a value that cannot be described'],
    ['throw_message_getter', 'Error: the tool threw a value that cannot be described'],
    ['throw_undefined', 'Error: undefined'],
    ['throw_symbol', 'Error: Symbol(odd)'],
  ])(
    '%s: a thrown value that is not an Error is the tool error, reported once, never a re-execution',
    async (name, content) => {
      const result = await executeTool(toolCall(name, '{}'));

      expect(result).toEqual({ content, isError: true, terminate: false });
      expect(oddThrowExecutions.get(name)).toBe(1);
    },
  );

  test('a tool slower than its timeout is stopped just before it and answered once, not left to the server to retry', async () => {
    const started = Date.now();
    const result = await executeTool(toolCall('sleepy', '{}'), newEnvironment({ startToCloseTimeoutMs: 2_000 }));

    expect(result).toEqual({
      content: 'Error: tool "sleepy" did not finish within its timeout (1.8 s); it was stopped',
      isError: true,
      terminate: false,
    });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(sleepySignals.at(-1)?.aborted).toBe(true);
  });

  test('a schema whose refinement throws is an argument error, not an activity failure', async () => {
    const result = await executeTool(toolCall('parse_url', '{"url":"not a url"}'));

    expect(result).toEqual({
      content: 'Error: invalid arguments for "parse_url": Invalid URL',
      isError: true,
      terminate: false,
    });
  });

  test('a TerminateResponse whose message is not text ends the run with its text', async () => {
    expect(await executeTool(toolCall('odd_terminate', '{}'))).toEqual({
      content: '10',
      isError: false,
      terminate: true,
    });
  });

  test("the workflow's idempotency key is the one the tool gets", async () => {
    await executeTool(toolCall('inspect_context', '{}', { idempotencyKey: 'wf-1:run-1:call-3-1' }));
    expect(observedContexts.at(-1)?.idempotencyKey).toBe('wf-1:run-1:call-3-1');
  });

  test('a TerminateResponse with a message ends the run with that message', async () => {
    const result = await executeTool(toolCall('end_with_message', '{}'));

    expect(result).toEqual({ content: 'All invoices filed.', isError: false, terminate: true });
  });

  test('a TerminateResponse without a message ends the run with "Task completed."', async () => {
    const result = await executeTool(toolCall('end_silently', '{}'));

    expect(DEFAULT_TERMINATE_MESSAGE).toBe('Task completed.');
    expect(result).toEqual({ content: 'Task completed.', isError: false, terminate: true });
  });

  test('the built-in finish tool terminates with its note, or with the default message', async () => {
    const withNote = await executeTool(toolCall('finish', '{"note":"Report sent."}'));
    const withoutNote = await executeTool(toolCall('finish', ''));

    expect(withNote).toEqual({ content: 'Report sent.', isError: false, terminate: true });
    expect(withoutNote).toEqual({ content: 'Task completed.', isError: false, terminate: true });
  });

  test('object and number outputs are sent as JSON text', async () => {
    const objectResult = await executeTool(toolCall('report_object', '{}'));
    const numberResult = await executeTool(toolCall('report_number', '{}'));

    expect(objectResult).toEqual({
      content: '{"total":3,"items":["a","b"],"nested":{"ok":true}}',
      isError: false,
      terminate: false,
    });
    expect(JSON.parse(objectResult.content)).toEqual({ total: 3, items: ['a', 'b'], nested: { ok: true } });
    expect(numberResult).toEqual({ content: '42', isError: false, terminate: false });
  });

  /** Runs `input` in `environment`, counting the heartbeats it sends. */
  async function countHeartbeats(
    input: ToolCallInput,
    environment: MockActivityEnvironment,
  ): Promise<{ result: ToolCallResult; heartbeats: number }> {
    let heartbeats = 0;
    environment.on('heartbeat', () => {
      heartbeats += 1;
    });
    const result = await executeTool(input, environment);
    return { result, heartbeats };
  }

  test('the activity heartbeats while a tool runs past the heartbeat interval', async () => {
    // sleepy gives up at 2.25 s; the interval is at most half the heartbeat timeout, so heartbeats are due at 1 s and 2 s.
    const { result, heartbeats } = await countHeartbeats(
      toolCall('sleepy', '{}'),
      newEnvironment({ startToCloseTimeoutMs: 2_500, heartbeatTimeoutMs: 2_000 }),
    );

    expect(result.isError).toBe(true);
    expect(heartbeats).toBeGreaterThanOrEqual(1);
  });

  test('a tool that finishes within the interval sends no heartbeat: the first is due one interval after the start', async () => {
    const { result, heartbeats } = await countHeartbeats(
      toolCall('calculator', '{"expression":"1 + 1"}'),
      newEnvironment(),
    );

    expect(result.content).toBe('2');
    expect(heartbeats).toBe(0);
  });

  test('a local activity never heartbeats, however long its tool runs', async () => {
    const { result, heartbeats } = await countHeartbeats(
      toolCall('sleepy', '{}'),
      newEnvironment({ startToCloseTimeoutMs: 2_500, isLocal: true }),
    );

    expect(result.content).toMatch(/^Error: tool "sleepy" did not finish within its timeout/);
    expect(heartbeats).toBe(0);
  });
});

describe('executeTool: the ToolContext', () => {
  test('carries workflowId:callId as the idempotency key when the workflow chose none (older runs), the run id and the attempt', async () => {
    const environment = newEnvironment({ workflowExecution: { workflowId: 'wf-1', runId: 'run-1' }, attempt: 3 });
    const contextsBefore = observedContexts.length;

    const result = await executeTool(toolCall('inspect_context', '{}', { callId: 'call_ctx_42' }), environment);

    expect(result).toEqual({ content: 'inspected', isError: false, terminate: false });
    const context = observedContexts[contextsBefore];
    expect(observedContexts).toHaveLength(contextsBefore + 1);
    expect(context).toEqual({
      idempotencyKey: 'wf-1:call_ctx_42',
      workflowId: 'wf-1',
      runId: 'run-1',
      callId: 'call_ctx_42',
      attempt: 3,
      // The call's signal: it fires on cancellation (below) and when the attempt's timeout is near.
      signal: expect.any(AbortSignal),
    });
    expect(context?.attempt).toBe(3);
    expect(context?.signal.aborted).toBe(false);
  });

  test('the idempotency key is the same on every attempt of one call', async () => {
    const contextsBefore = observedContexts.length;
    const input = toolCall('inspect_context', '{}', { callId: 'call_retried' });

    await executeTool(input, newEnvironment({ workflowExecution: { workflowId: 'wf-2', runId: 'run-a' }, attempt: 1 }));
    await executeTool(input, newEnvironment({ workflowExecution: { workflowId: 'wf-2', runId: 'run-a' }, attempt: 2 }));

    const [first, second] = observedContexts.slice(contextsBefore);
    expect(first?.idempotencyKey).toBe('wf-2:call_retried');
    expect(second?.idempotencyKey).toBe('wf-2:call_retried');
    expect([first?.attempt, second?.attempt]).toEqual([1, 2]);
  });

  test('an activity started outside a workflow is keyed by its activity id', async () => {
    const environment = newEnvironment({ workflowExecution: undefined, inWorkflow: false, activityId: 'standalone-7' });
    const contextsBefore = observedContexts.length;

    await executeTool(toolCall('inspect_context', '{}', { callId: 'call_solo' }), environment);

    expect(observedContexts[contextsBefore]).toMatchObject({
      idempotencyKey: 'standalone-7:call_solo',
      workflowId: 'standalone-7',
      runId: '',
      callId: 'call_solo',
    });
  });

  test('its signal is aborted when the activity is cancelled during a slow tool, which then stops promptly', async () => {
    const callsBefore = waitingToolSignals.length;
    const environment = newEnvironment();
    const outcome = rejectionOf(executeTool(toolCall('wait_for_cancellation', '{}'), environment));

    await waitUntil(() => waitingToolSignals.length > callsBefore);
    const toolSignal = waitingToolSignals[callsBefore];
    expect(toolSignal?.aborted).toBe(false);
    const cancelledAt = Date.now();
    environment.cancel();
    const error = await outcome;

    expect(Date.now() - cancelledAt).toBeLessThan(1_000);
    expect(toolSignal?.aborted).toBe(true);
    // The cancellation propagates as Temporal's CancelledFailure, not as an error result for the model.
    expect(error).toBeInstanceOf(CancelledFailure);
  });

  test('an error a tool throws after cancellation ends the activity as cancelled instead of becoming a result', async () => {
    const callsBefore = failingAfterCancellationSignals.length;
    const environment = newEnvironment();
    const outcome = rejectionOf(executeTool(toolCall('fail_after_cancellation', '{}'), environment));

    await waitUntil(() => failingAfterCancellationSignals.length > callsBefore);
    environment.cancel();
    const error = await outcome;

    expect(failingAfterCancellationSignals[callsBefore]?.aborted).toBe(true);
    expect(error).not.toBeInstanceOf(ApplicationFailure);
    // The tool's own error ("interrupted while writing") gives way to the cancellation that caused it.
    expect(error).toBeInstanceOf(CancelledFailure);
  });
});

describe('outputs JSON cannot hold', () => {
  test("a circular object is the tool's error, not an activity failure that would run the tool again", async () => {
    const result = await executeTool({
      toolName: 'circular',
      callId: 'call_circular',
      arguments: '{}',
      allowedTools: ['circular'],
    });
    expect(result.isError).toBe(true);
    expect(result.terminate).toBe(false);
    expect(result.content).toMatch(/^Error: Converting circular structure to JSON/);
  });

  test('with no tools allowed, the unknown-tool message says "none"', async () => {
    const result = await executeTool({ toolName: 'anything', callId: 'call_none', arguments: '{}', allowedTools: [] });
    expect(result.content).toBe('Error: there is no tool named "anything". Available tools: none.');
  });
});

describe('WaitForInput', () => {
  test('ask_question returns the question for the workflow to wait on', async () => {
    const result = await executeTool({
      toolName: 'ask_question',
      callId: 'call_q',
      arguments: '{"question":"Which year?"}',
      allowedTools: ['ask_question'],
    });
    expect(result).toEqual({
      content: 'Asked the user: Which year?',
      isError: false,
      terminate: false,
      waitForInput: { question: 'Which year?' },
    });
  });
});

describe('executeTool: configured secrets never leave the activity', () => {
  const secret = 'sk-live-0123456789abcdef';
  const leakyTool = defineTool({
    name: 'print_env',
    description: 'Prints what it should not.',
    parameters: z.object({ fail: z.boolean().default(false) }),
    execute: ({ fail }) => {
      if (fail) throw new RetryableToolError(`upstream said: bad key ${secret}`);
      return `OPENAI_API_KEY=${secret}`;
    },
  });
  const leaky = createActivities({
    registry: createToolRegistry([leakyTool]),
    model: { baseURL: 'http://127.0.0.1:9/v1', apiKey: secret, defaultModel: 'unused' },
  });

  test('a result that echoes the model key is redacted', async () => {
    const result: ToolCallResult = await newEnvironment().run(leaky.executeTool, toolCall('print_env', '{}'));
    expect(result.content).toBe('OPENAI_API_KEY=[redacted]');
  });

  test('a retryable failure that echoes it is redacted too', async () => {
    const error = await rejectionOf(newEnvironment().run(leaky.executeTool, toolCall('print_env', '{"fail":true}')));
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as Error).message).toBe('upstream said: bad key [redacted]');
    expect(JSON.stringify(error)).not.toContain(secret);
  });
});
