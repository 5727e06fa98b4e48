import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { TestEnv } from '../helpers/test-env';

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

describe('bad input fails the run at once with InvalidAgentInput', () => {
  test.each([
    [{ tools: ['calculator'] }, 'message: give `message`, or a non-empty `messages`'],
    [{ tools: 'calculator', message: 'hi' }, 'tools: Invalid input: expected array, received string'],
    [{ tools: [], message: 'hi', maxInvocation: 3 }, 'input: Unrecognized key: "maxInvocation"'],
    [
      { tools: ['calculator'], message: 'hi', terminating: { toolIds: ['finish'] } },
      'terminating.toolIds[0]: "finish" is not one of this run\'s tools',
    ],
    [
      { tools: [], message: 'hi', terminating: { toolIds: [], consecutiveNudges: -1 } },
      'terminating.consecutiveNudges: Too small',
    ],
  ])('%j', async (input, expected) => {
    const failure = await env.runExpectingFailure(input);
    expect(failure.type).toBe('InvalidAgentInput');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(expected);
    // Nothing was scheduled: the input is checked before any activity.
    expect(env.model.requests('unused-default')).toHaveLength(0);
  });

  test('an unknown tool name lists the tools the worker registers', async () => {
    const failure = await env.runExpectingFailure({ tools: ['calculator', 'web_search'], message: 'hi' });
    expect(failure.type).toBe('InvalidAgentInput');
    expect(failure.message).toBe(
      'Invalid agent input: tools: unknown tool "web_search"; the worker registers: ask_question, calculator, converse, finish, list_files, read_file, task_completion, write_file',
    );
  });

  test('a conversation with an unanswered tool call is refused before the provider sees it', async () => {
    const failure = await env.runExpectingFailure({
      tools: [],
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'calculator', arguments: '{}' } }],
        },
      ],
    });
    expect(failure.message).toContain('messages[1]: tool call "call_x" has no tool message answering it');
  });
});

describe('model call failures', () => {
  test('401 fails the run at once, non-retryable, with the provider message and a type that says which', async () => {
    const model = env.scenario([
      { error: { status: 401, message: 'Incorrect API key provided: sk-bad.', code: 'invalid_api_key' } },
    ]);
    const handle = await env.start({ model, tools: [], message: 'hi' });
    const error = await handle.result().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    const failure = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('ModelCall.Unauthorized');
    expect(failure.message).toContain('401 from model');
    expect(failure.message).toContain('Incorrect API key provided: sk-bad. Check OPENAI_API_KEY.');
    // One attempt only: the activity was not retried.
    expect(env.model.requests(model)).toHaveLength(1);
    expect(await activityAttempts(handle.workflowId, 'callModel')).toEqual([1]);
  });

  test.each([
    [400, 'ModelCall.BadRequest'],
    [403, 'ModelCall.Forbidden'],
    [404, 'ModelCall.NotFound'],
  ])('%i fails at once as %s', async (status, type) => {
    const model = env.scenario([{ error: { status, message: `refused with ${status}` } }]);
    const failure = await env.runExpectingFailure({ model, tools: [], message: 'hi' });
    expect(failure.type).toBe(type);
    expect(failure.message).toContain(`refused with ${status}`);
    expect(env.model.requests(model)).toHaveLength(1);
  });

  test('429 with Retry-After is retried by Temporal after the delay the provider asked for', async () => {
    const model = env.scenario([
      { error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '2' } } },
      { content: 'after the wait' },
    ]);
    const started = Date.now();
    const result = await env.run({ model, tools: [], message: 'hi' });
    expect(result.response).toBe('after the wait');
    expect(env.model.requests(model)).toHaveLength(2);
    // The policy's own first interval is 1 s; the 2 s wait is Retry-After's.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  test('500 and 503 are retried with backoff until the model answers', async () => {
    const model = env.scenario([
      { error: { status: 500, message: 'internal error' } },
      { error: { status: 503, message: 'overloaded' } },
      { content: 'recovered' },
    ]);
    const handle = await env.start({ model, tools: [], message: 'hi' });
    expect(((await handle.result()) as { response: string }).response).toBe('recovered');
    expect(env.model.requests(model)).toHaveLength(3);
    expect(await activityAttempts(handle.workflowId, 'callModel')).toEqual([3]);
  });

  test('a 429 for an exhausted quota is not retried', async () => {
    const model = env.scenario([
      { error: { status: 429, message: 'You exceeded your current quota.', code: 'insufficient_quota' } },
    ]);
    const failure = await env.runExpectingFailure({ model, tools: [], message: 'hi' });
    expect(failure.type).toBe('ModelCall.QuotaExceeded');
    expect(env.model.requests(model)).toHaveLength(1);
  });

  test('the failure carries the partial transcript and usage', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2+2' } }] },
      { error: { status: 401, message: 'key revoked' } },
    ]);
    const failure = await env.runExpectingFailure({ model, tools: ['calculator'], message: 'hi' });
    const [partial] = failure.details as [{ messages: unknown[]; usage: { totalTokens: number }; iterations: number }];
    expect(partial.messages).toHaveLength(3);
    expect(partial.usage.totalTokens).toBeGreaterThan(0);
    expect(partial.iterations).toBe(2);
  });
});

/** Attempt numbers of each completed activity of `activityType`, read from the run's history. */
async function activityAttempts(workflowId: string, activityType: string): Promise<number[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Map<string, string>();
  const attempts: number[] = [];
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes) {
      scheduled.set(String(event.eventId), event.activityTaskScheduledEventAttributes.activityType?.name ?? '');
    }
    const started = event.activityTaskStartedEventAttributes;
    if (event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED && started) {
      if (scheduled.get(String(started.scheduledEventId)) === activityType) attempts.push(started.attempt ?? 0);
    }
  }
  return attempts;
}
