import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { eventsQuery, stateQuery } from '../../src/workflow-contract/definitions';
import { FailureType } from '../../src/shared/failure-catalogue';
import type { RunEvent, RunEventOf } from '../../src/shared/run-events';
import type { Usage } from '../../src/shared/messages';
import { DEFAULT_CONTINUATION_MESSAGE } from '../../src/shared/defaults/model-settings';
import { TestEnv } from '../helpers/test-env';
import { defineAgentTool } from '../../src/tools/define-agent-tool';

/**
 * Sampling settings, answers cut by the token cap, and the tokens of attempts that failed, through a real
 * worker on the suite's Temporal server and the scripted model over HTTP (streamed, as the worker asks by
 * default). The worker has sampling settings of its own, so a run's are seen to override them field by field.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create({
    modelSettings: { sampling: { maxTokens: 300, temperature: 0.5 } },
    extraTools: [
      defineAgentTool({ name: 'helper', description: 'Helps.', instructions: 'Answer briefly.', tools: [] }),
    ],
  });
});
afterAll(async () => {
  await env.close();
});

async function eventsOf(workflowId: string): Promise<RunEvent[]> {
  return (await env.client.workflow.getHandle(workflowId).query(eventsQuery)).events;
}

function ofType<Type extends RunEvent['type']>(events: RunEvent[], type: Type): RunEventOf<Type>[] {
  return events.filter((event): event is RunEventOf<Type> => event.type === type);
}

describe('sampling settings', () => {
  test("the worker's settings go with every call; a run's override them field by field, tool_choice only with tools", async () => {
    const plain = env.scenario([{ content: 'plain' }]);
    await env.run({ model: plain, tools: [], message: 'hi' });
    const [plainRequest] = env.model.requests(plain);
    expect(plainRequest).toMatchObject({ max_tokens: 300, temperature: 0.5 });
    for (const field of ['top_p', 'seed', 'stop', 'tool_choice', 'max_completion_tokens'])
      expect(plainRequest).not.toHaveProperty(field);

    const tuned = env.scenario([{ toolCalls: [{ name: 'list_files', arguments: {} }] }, { content: 'tuned' }]);
    const result = await env.run({
      model: tuned,
      tools: ['list_files'],
      message: 'hi',
      modelSettings: { maxTokens: 64, temperature: 0, topP: 0.9, seed: 7, stop: ['END'], toolChoice: 'required' },
    });
    expect(result.response).toBe('tuned');
    for (const request of env.model.requests(tuned)) {
      expect(request).toMatchObject({
        max_tokens: 64,
        temperature: 0,
        top_p: 0.9,
        seed: 7,
        stop: ['END'],
        tool_choice: 'required',
      });
    }
  });

  test("a nested agent inherits the run's settings but toolChoice", async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'helper', arguments: { task: 'Say hi.' } }] },
      { content: 'hi' }, // the nested agent
      { content: 'The helper said hi.' },
    ]);
    const result = await env.run({
      model,
      tools: ['helper'],
      message: 'Ask the helper.',
      modelSettings: { temperature: 0.3, toolChoice: 'required' },
    });
    expect(result.response).toBe('The helper said hi.');
    const [parent, child] = env.model.requests(model);
    expect(parent).toMatchObject({ temperature: 0.3, tool_choice: 'required', max_tokens: 300 });
    expect(child).toMatchObject({ temperature: 0.3, max_tokens: 300 });
    expect(child).not.toHaveProperty('tool_choice');
  });

  test('out-of-bounds settings fail the run at once with InvalidAgentInput, naming the field', async () => {
    const failure = await env.runExpectingFailure({
      model: env.scenario([]),
      tools: [],
      message: 'hi',
      modelSettings: { temperature: 3, maxTokens: 0, toolChoice: 'required', extra: 1 },
    });
    expect(failure.type).toBe(FailureType.invalidInput);
    expect(failure.message).toContain('modelSettings.temperature');
    expect(failure.message).toContain('modelSettings.maxTokens');
    expect(failure.message).toContain('extra');

    const noTools = await env.runExpectingFailure({
      model: env.scenario([]),
      tools: [],
      message: 'hi',
      modelSettings: { toolChoice: 'required' },
    });
    expect(noTools.message).toContain('modelSettings.toolChoice: "required" needs at least one tool');
  });
});

describe('an answer cut by the token cap', () => {
  test('is continued by default: the parts are joined, the events say it was cut and continued', async () => {
    const model = env.scenario([
      { content: 'The first half, ', finishReason: 'length' },
      { content: 'then the second half.' },
    ]);
    const handle = await env.start({ model, tools: [], message: 'write' });
    const result = (await handle.result()) as { response: string; truncated?: true; invocations: number };
    expect(result.response).toBe('The first half, then the second half.');
    expect(result.truncated).toBeUndefined();
    expect(result.invocations).toBe(2);

    const [, second] = env.model.requests(model);
    expect(second?.messages.at(-1)).toEqual({ role: 'system', content: DEFAULT_CONTINUATION_MESSAGE });
    const events = await eventsOf(handle.workflowId);
    const responses = ofType(events, 'model-response');
    expect(responses.map((event) => [event.finishReason, event.truncated])).toEqual([
      ['length', true],
      ['stop', undefined],
    ]);
    expect(ofType(events, 'continuation-injection')).toHaveLength(1);
  });

  test('still cut after maxContinuations: AnswerTruncated, with the joined text in its details', async () => {
    const model = env.scenario([
      { content: 'one ', finishReason: 'length' },
      { content: 'two ', finishReason: 'length' },
    ]);
    const failure = await env.runExpectingFailure({
      model,
      tools: [],
      message: 'write',
      answerTruncation: { maxContinuations: 1 },
    });
    expect(failure.type).toBe(FailureType.answerTruncated);
    expect(failure.message).toContain('still cut after 1 continuation(s)');
    expect(failure.details?.[0]).toMatchObject({ continuations: 1, response: 'one two ', iterations: 2 });
  });

  test("action 'fail' fails at once; action 'accept' completes with truncated: true", async () => {
    const failed = await env.runExpectingFailure({
      model: env.scenario([{ content: 'cut', finishReason: 'length' }]),
      tools: [],
      message: 'write',
      answerTruncation: { action: 'fail' },
    });
    expect(failed.type).toBe(FailureType.answerTruncated);
    expect(failed.message).toContain('answerTruncation.action is "fail"');

    const accepted = await env.run({
      model: env.scenario([{ content: 'cut sho', finishReason: 'length' }]),
      tools: [],
      message: 'write',
      answerTruncation: { action: 'accept' },
    });
    expect(accepted).toMatchObject({ response: 'cut sho', truncated: true, terminationReason: { type: 'complete' } });
  });

  test('a tool call whose arguments the cap cut is not run: the model hears it was cut', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'read_file', arguments: '{"path": "notes/very-long-na' }], finishReason: 'length' },
      { content: 'understood' },
    ]);
    const handle = await env.start({ model, tools: ['read_file'], message: 'read it' });
    await handle.result();
    const toolMessage = env.model.requests(model)[1]?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('was cut off by the output token limit (max_tokens)');
    expect(toolMessage?.content).toContain('read_file');
    const events = await eventsOf(handle.workflowId);
    // The tool never ran.
    expect(ofType(events, 'tool-call-start')).toHaveLength(0);
    expect(ofType(events, 'model-response')[0]).toMatchObject({ finishReason: 'length', truncated: true });
  });
});

describe('the tokens of attempts that failed', () => {
  const LONG = 'word '.repeat(400);

  test("a stream that broke off is counted, estimated, in the answer's usage and the run's", async () => {
    const model = env.scenario([{ content: LONG, breakAfterChunks: 200 }, { content: 'fine' }]);
    const handle = await env.start({ model, tools: [], message: 'hi' });
    const result = (await handle.result()) as { usage: Usage };
    // The answer that came whole counted 2 completion tokens; the broken one streamed about 199 words.
    expect(result.usage.estimated).toBe(true);
    expect(result.usage.completionTokens).toBeGreaterThanOrEqual(2 + Math.floor((199 * 5) / 4));
    expect(result.usage.completionTokens).toBeLessThan(2 + Math.ceil((200 * 5) / 4) + 2);
    const [response] = ofType(await eventsOf(handle.workflowId), 'model-response');
    expect(response?.usage).toEqual(result.usage);
  });

  test('a server that counts nothing gets an estimate, said to be one, not 0', async () => {
    const result = await env.run({
      model: env.scenario([{ content: 'four words right here', omitUsage: true }]),
      tools: [],
      message: 'hi',
    });
    expect(result.usage).toMatchObject({
      completionTokens: Math.ceil('four words right here'.length / 4),
      estimated: true,
    });
    expect(result.usage.promptTokens).toBeGreaterThan(0);
  });

  test('an attempt cut off by its worker shutting down is counted by the attempt that follows', async () => {
    // The worker shuts down mid-stream (a deploy): the attempt, cancelled, heartbeats what it spent as it goes.
    const model = env.scenario([{ content: LONG, tokenDelayMs: 10 }, { content: 'fine' }]);
    const handle = await env.start({ model, tools: [], message: 'hi' });
    const deadline = Date.now() + 20_000;
    while (env.model.sentChunks(model).length < 200 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await env.restartWorker();
    const result = (await handle.result()) as { usage: Usage };
    expect(env.model.requests(model)).toHaveLength(2);
    expect(result.usage.estimated).toBe(true);
    // At least what the first attempt had streamed when the worker went (200 chunks of a word each).
    expect(result.usage.completionTokens).toBeGreaterThan(2 + 200);
  });

  test('a call that fails for good reports what its attempts streamed: in the failure and the run state', async () => {
    const chunk = (content: string) => ({
      id: 'c',
      object: 'chat.completion.chunk',
      model: 'm',
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    });
    const broken = { rawStream: { chunks: [chunk('x'.repeat(400)), 'not json'] } };
    const model = env.scenario([broken, broken, broken]);
    const handle = await env.start({ model, tools: [], message: 'hi' });
    const failure = await handle.result().then(
      () => undefined,
      (error: unknown) => (error instanceof WorkflowFailedError ? error.cause : undefined),
    );
    if (!(failure instanceof ApplicationFailure))
      throw new Error(`expected an ApplicationFailure, got ${String(failure)}`);
    expect(failure.type).toBe(FailureType.modelCallInvalidResponse);
    const usage = (failure.details?.[0] as { usage: Usage }).usage;
    // Three attempts, each 100 tokens written before the bad chunk.
    expect(usage).toMatchObject({ completionTokens: 300, estimated: true });
    expect(usage.promptTokens).toBeGreaterThan(0);
    const state = await handle.query(stateQuery);
    expect(state.usage).toMatchObject({ completionTokens: 300, estimated: true });
  });
});
