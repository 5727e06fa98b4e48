import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, RawValue } from '@temporalio/common';
import { CONVERSATION_WORKFLOW_TYPE } from '../../src/shared/conversation';
import { INPUT_BOUNDS } from '../../src/shared/defaults/input-bounds';
import { WORKFLOW_TYPE } from '../../src/shared/defaults/names';
import { eventsQuery } from '../../src/workflow-contract/definitions';
import { runProcess, temporalCli } from '../helpers/processes';
import { TestEnv, testServerAddress } from '../helpers/test-env';

/**
 * Hostile input, started through a real worker: every one must fail the run
 * at once with `InvalidAgentInput` naming the field, and none may fail a
 * workflow task (a task that throws is retried forever, and the run never
 * ends). Before the input bounds, the deep `stopWhen`, the second argument
 * and the `null` conversation input each looped on `WorkflowTaskFailed`.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

/** JSON text sent as it is: `JSON.stringify` itself overflows the stack on values nested 10,000 levels deep. */
function rawJson(text: string): RawValue {
  return RawValue.fromPayload({ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(text) });
}

/** `{ any: [ ... { maxMessages: 1 } ... ] }` nested `levels` times, as JSON text. */
function deepStopWhen(levels: number): string {
  return `${'{"any":['.repeat(levels)}{"maxMessages":1}${']}'.repeat(levels)}`;
}

/** `{ "a": { "a": ... {} } }` nested `levels` times, as JSON text. */
function deepObject(levels: number): string {
  return `${'{"a":'.repeat(levels)}{}${'}'.repeat(levels)}`;
}

async function start(workflowType: string, args: unknown[]): Promise<WorkflowHandle> {
  return env.client.workflow.start(workflowType, {
    taskQueue: env.taskQueue,
    workflowId: `hostile-${randomUUID()}`,
    args,
  });
}

/** Every event type of the run's history. */
async function eventsOf(handle: WorkflowHandle) {
  return (await handle.fetchHistory()).events ?? [];
}

/**
 * The run's failure. Fails the test (and terminates the run) as soon as a
 * workflow task has failed, instead of waiting for a run that never ends.
 */
async function failureOf(handle: WorkflowHandle): Promise<ApplicationFailure> {
  const outcome = handle.result().then(
    () => new Error(`workflow ${handle.workflowId} completed; a failure was expected`),
    (error: unknown) => error,
  );
  let settled: unknown;
  void outcome.then((value) => (settled = value ?? null));
  // Refusals come at once; a run still going after this is not being refused.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (Date.now() > deadline) {
      await handle.terminate('the hostile-input test waited too long');
      throw new Error(`workflow ${handle.workflowId} did not end within 30 s; a refusal ends it at once`);
    }
    const failedTask = (await eventsOf(handle)).find((event) => event.workflowTaskFailedEventAttributes);
    if (failedTask !== undefined) {
      await handle.terminate('the hostile-input test saw a failed workflow task');
      throw new Error(
        `a workflow task failed: ${failedTask.workflowTaskFailedEventAttributes?.failure?.message ?? '(no message)'}`,
      );
    }
    if (settled !== undefined) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const error = await outcome;
  if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure) return error.cause;
  throw error;
}

/** Asserts the run failed with `InvalidAgentInput` saying `expected`, with no failed workflow task and no activity scheduled. */
async function expectRefused(handle: WorkflowHandle, expected: string): Promise<ApplicationFailure> {
  const failure = await failureOf(handle);
  expect(failure.type).toBe('InvalidAgentInput');
  expect(failure.nonRetryable).toBe(true);
  expect(failure.message).toContain(expected);
  const events = await eventsOf(handle);
  expect(events.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
  expect(events.filter((event) => event.activityTaskScheduledEventAttributes)).toEqual([]);
  return failure;
}

describe('hostile agent input fails the run at once, without a failed workflow task', () => {
  test('stopWhen nested 3,000 levels deep', async () => {
    const handle = await start(WORKFLOW_TYPE, [
      rawJson(`{"tools":[],"message":"hi","stopWhen":${deepStopWhen(3000)}}`),
    ]);
    await expectRefused(handle, `stopWhen: nested more than ${INPUT_BOUNDS.depth} levels deep`);
  });

  test("a custom condition's params nested 10,000 levels deep", async () => {
    const handle = await start(WORKFLOW_TYPE, [
      rawJson(`{"tools":[],"message":"hi","stopWhen":{"custom":"x","params":${deepObject(10_000)}}}`),
    ]);
    await expectRefused(handle, `stopWhen: nested more than ${INPUT_BOUNDS.depth} levels deep (at stopWhen.params.a.a`);
  });

  test('a second workflow argument', async () => {
    const handle = await start(WORKFLOW_TYPE, [{ tools: [], message: 'hi' }, { garbage: true }]);
    await expectRefused(handle, "arguments: agentWorkflow takes one argument, the run's input, and was started with 2");
  });

  test('a third argument, the second left empty', async () => {
    const handle = await start(WORKFLOW_TYPE, [{ tools: [], message: 'hi' }, undefined, 'more']);
    await expectRefused(handle, 'agentWorkflow takes one argument');
  });

  test.each([
    [
      'a 1.3 MiB model name',
      { tools: [], message: 'hi', model: 'm'.repeat(1.3 * 1024 * 1024) },
      `model: Too big: expected string to have <=${INPUT_BOUNDS.modelChars} characters`,
    ],
    [
      '200 tools',
      { tools: Array.from({ length: 200 }, (_, index) => `tool_${index}`), message: 'hi' },
      `tools: Too big: expected array to have <=${INPUT_BOUNDS.tools} items`,
    ],
    ['a tool name of 1,000 characters', { tools: ['t'.repeat(1000)], message: 'hi' }, 'tools[0]: Too big'],
    [
      'instructions past the text bound',
      { tools: [], message: 'hi', instructions: 'i'.repeat(INPUT_BOUNDS.textChars + 1) },
      'instructions: Too big',
    ],
    [
      'a tool call id of 300 characters',
      {
        tools: [],
        messages: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c'.repeat(300), type: 'function', function: { name: 'calculator', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c'.repeat(300), content: '1' },
        ],
      },
      'messages[0].tool_calls[0].id: Too big',
    ],
    [
      'an `any` of 65 members',
      { tools: [], message: 'hi', stopWhen: { any: Array.from({ length: 65 }, () => ({ maxMessages: 1 })) } },
      'stopWhen.any: Too big',
    ],
    [
      'params of 20 KiB',
      { tools: [], message: 'hi', stopWhen: { custom: 'x', params: { text: 'p'.repeat(20 * 1024) } } },
      'stopWhen.params: params must be at most',
    ],
    ['a string', 'do the task', 'input: Invalid input: expected object, received string'],
    ['null', null, 'input: Invalid input: expected object, received null'],
  ])('%s', async (_name, input, expected) => {
    await expectRefused(await start(WORKFLOW_TYPE, [input]), expected);
  });

  test('1,000 malformed messages and a 500 KiB unknown key: the problems are listed short and counted, so the failure fits in a payload', async () => {
    const input = {
      tools: [],
      messages: Array.from({ length: 1000 }, () => ({ role: 'nobody' })),
      ['k'.repeat(500 * 1024)]: true,
    };
    const failure = await expectRefused(await start(WORKFLOW_TYPE, [input]), 'more problems');
    expect(failure.message.length).toBeLessThan(INPUT_BOUNDS.problems * (INPUT_BOUNDS.problemChars + 2) + 100);
  });
});

describe('hostile conversation input', () => {
  test.each([
    ['null', [null], 'schemaVersion: expected one of 2 (the conversation input versions this worker reads), got none'],
    [
      'no version',
      [{ contextId: 'c1' }],
      'schemaVersion: expected one of 2 (the conversation input versions this worker reads), got none',
    ],
    ['no contextId', [{ schemaVersion: 2, messages: [] }], 'contextId'],
    [
      'a second argument',
      [{ schemaVersion: 2, contextId: 'c1' }, { garbage: true }],
      'arguments: conversationWorkflow takes one argument',
    ],
  ])('%s', async (_name, args, expected) => {
    await expectRefused(await start(CONVERSATION_WORKFLOW_TYPE, args), expected);
  });
});

test('`temporal workflow start --input X --input \'{"garbage":true}\'` fails the run with InvalidAgentInput', async () => {
  const cli = await temporalCli();
  const workflowId = `hostile-cli-${randomUUID()}`;
  const started = await runProcess(cli, [
    'workflow',
    'start',
    '--type',
    WORKFLOW_TYPE,
    '--task-queue',
    env.taskQueue,
    '--workflow-id',
    workflowId,
    '--input',
    JSON.stringify({ tools: [], message: 'hi' }),
    '--input',
    '{"garbage":true}',
    '--address',
    testServerAddress(),
  ]);
  expect(started.code).toBe(0);
  await expectRefused(env.client.workflow.getHandle(workflowId), 'agentWorkflow takes one argument');
});

describe('hostile signals and updates are refused without a failed workflow task', () => {
  test('an approval whose arguments nest 10,000 levels, a decide update and setLimits the same, a terminate whose reason is an object', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'deep.txt', content: 'x' } }] },
      { content: 'done' },
    ]);
    const handle = await start(WORKFLOW_TYPE, [
      { model, tools: ['write_file'], message: 'write', approval: { tools: ['write_file'] } },
    ]);
    for (;;) {
      const { events } = await handle.query(eventsQuery, {});
      if (events.some((event) => event.type === 'approval-request')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await handle.signal('approve', rawJson(`{"callId":"call-1-1","arguments":${deepObject(10_000)}}`));
    await expect(
      handle.executeUpdate('decide', {
        args: [rawJson(`{"callId":"call-1-1","decision":"approve","arguments":${deepObject(10_000)}}`)],
      }),
    ).rejects.toMatchObject({
      cause: {
        type: 'InvalidDecision',
        message: expect.stringMatching(/^Malformed decision: arguments(\.a)+: nested deeper than 32 levels$/),
      },
    });
    await expect(
      handle.executeUpdate('setLimits', { args: [rawJson(`{"maxInvocations":${deepObject(10_000)}}`)] }),
    ).rejects.toMatchObject({
      cause: { type: 'InvalidLimits', message: expect.stringMatching(/nested deeper than 32 levels$/) },
    });
    const page = await handle.query(eventsQuery, {});
    expect(page.events.find((event) => event.type === 'decision-rejection')?.problem).toMatch(
      /^Malformed decision: arguments(\.a)+: nested deeper than 32 levels$/,
    );

    await handle.signal('terminate', { reason: { not: 'text' } });
    const result = (await handle.result()) as { terminationReason: unknown };
    expect(result.terminationReason).toEqual({ type: 'external', via: 'signal' });
    expect((await eventsOf(handle)).filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
  });
});
