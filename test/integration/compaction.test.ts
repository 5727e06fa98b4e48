import { WorkflowFailedError } from '@temporalio/client';
import { temporalRunsOf } from '../../src/temporal/run-chain';
import type { ChatCompletionRequest } from '../../src/scripted-model/script';
import { COMPACTION_SUMMARY_HEADING, DEFAULT_COMPACTION_INSTRUCTIONS } from '../../src/shared/defaults/context-control';
import { addUsage, ZERO_USAGE, type ChatMessage } from '../../src/shared/messages';
import { eventsQuery, stateQuery, transcriptQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type RunEventOf } from '../../src/shared/run-events';
import { defaultPayloadConverter } from '@temporalio/common';
import { getAgentTranscript, readAgentTranscript } from '../../src/client';
import { TestEnv } from '../helpers/test-env';

/**
 * Compaction through a real worker and dev server: when what the model would
 * see passes `compaction.maxTokens`, the summariser model summarises the older
 * messages, the agent's model sees the summary in their place, and the result
 * keeps the whole transcript.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

/**
 * Iteration `step` of the agent: 90 tokens of text (about four characters a
 * token) marked `step-N`, and a calculator call: about 99 tokens with its
 * result. With `maxTokens: 256` and one iteration kept, the context passes the
 * limit with three iterations in it (before iterations 4 and 6), and a summary
 * with two iterations stays under it.
 */
const step = (index: number) => ({
  content: `step-${index} `.padEnd(360, '.'),
  toolCalls: [{ name: 'calculator', arguments: { expression: `${index} + 1` } }],
});
const agentScript = () => [step(1), step(2), step(3), step(4), step(5), { content: 'all added' }];
const compaction = (model: string) => ({ maxTokens: 256, keepRecentIterations: 1, model });

/** Every text the request carries, its messages' contents joined. */
const textOf = (request: ChatCompletionRequest | undefined): string =>
  (request?.messages ?? []).map((message) => message.content ?? '').join('\n');

describe('compaction', () => {
  test('past maxTokens the model sees a rolling summary instead of the older messages; the result keeps them all', async () => {
    const model = env.scenario(agentScript());
    const summariser = env.scenario([
      { content: 'SUMMARY-ONE: asked to add; 1+1=2, 2+1=3' },
      { content: 'SUMMARY-TWO: 1..4 added' },
    ]);
    const handle = await env.start({ model, tools: ['calculator'], message: 'go', compaction: compaction(summariser) });
    const result = (await handle.result()) as AgentResult;

    expect(result).toMatchObject({ response: 'all added', iterations: 6, invocations: 6 });
    // The transcript is whole: the message, five calls with their results, the answer.
    expect(result.messages).toHaveLength(1 + 5 * 2 + 1);
    expect(
      result.messages.filter((message) => message.role === 'assistant' && message.content?.startsWith('step-')),
    ).toHaveLength(5);

    const summaryRequests = env.model.requests(summariser);
    expect(summaryRequests).toHaveLength(2);
    expect(summaryRequests[0]?.tools).toBeUndefined();
    expect(summaryRequests[0]?.messages[0]).toEqual({ role: 'system', content: DEFAULT_COMPACTION_INSTRUCTIONS });
    expect(textOf(summaryRequests[0])).toMatch(/\[user\]\ngo\n[\s\S]*step-1[\s\S]*step-2/);
    expect(textOf(summaryRequests[0])).not.toContain('step-3');
    // Rolling: the second summary is written from the first and the messages after it.
    expect(textOf(summaryRequests[1])).toContain('SUMMARY-ONE');
    expect(textOf(summaryRequests[1])).toMatch(/step-3[\s\S]*step-4/);
    expect(textOf(summaryRequests[1])).not.toMatch(/step-1 |step-2 |\[user\]\ngo/);

    const requests = env.model.requests(model);
    expect(requests).toHaveLength(6);
    // Before the first compaction the model saw everything; after it, the summary and the kept iteration only.
    expect(textOf(requests[2])).toContain('step-1');
    for (const [index, summary, kept] of [
      [3, 'SUMMARY-ONE', ['step-3']],
      [4, 'SUMMARY-ONE', ['step-3', 'step-4']],
      [5, 'SUMMARY-TWO', ['step-5']],
    ] as const) {
      const request = requests[index];
      expect(request?.messages[0]).toEqual({
        role: 'user',
        content: expect.stringContaining(`${COMPACTION_SUMMARY_HEADING}\n\n${summary}`),
      });
      for (const marker of kept) expect(textOf(request)).toContain(marker);
      expect(request?.messages.some((message) => message.content === 'go')).toBe(false);
      expect(textOf(request)).not.toMatch(/step-1 |step-2 /);
    }
    // A valid conversation for the provider: every kept tool result follows its call.
    expect(requests[3]?.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);

    const { events } = await handle.query(eventsQuery, {});
    const compactions = events.filter((event): event is RunEventOf<'compaction'> => event.type === 'compaction');
    expect(
      compactions.map((event) => [
        event.iteration,
        event.throughIndex,
        event.messagesSummarised,
        event.summaryCut,
        event.model,
      ]),
    ).toEqual([
      [4, 4, 5, false, summariser],
      [6, 8, 4, false, summariser],
    ]);
    for (const event of compactions) {
      expect(event.tokensBefore).toBeGreaterThan(256);
      expect(event.tokensAfter).toBeLessThan(event.tokensBefore);
    }
    // The summaries' tokens count in the run's usage, besides the agent's own calls.
    const modelUsage = events
      .flatMap((event) => (event.type === 'model-response' ? [event.usage] : []))
      .reduce(addUsage, ZERO_USAGE);
    expect(result.usage).toEqual(compactions.map((event) => event.usage).reduce(addUsage, modelUsage));
    expect(compactions[0]?.usage.totalTokens).toBeGreaterThan(0);
  });

  test('a compaction survives continue-as-new: the next Temporal run shows the same summary and does not summarise again', async () => {
    const model = env.scenario(agentScript());
    const summariser = env.scenario([{ content: 'SUMMARY-ONE' }, { content: 'SUMMARY-TWO' }]);
    const instructions = 'Summarise in one line.';
    const handle = await env.start({
      model,
      tools: ['calculator'],
      message: 'go',
      iterationsPerRun: 2,
      compaction: { ...compaction(summariser), instructions },
    });
    const result = (await handle.result()) as AgentResult;

    expect(result).toMatchObject({ response: 'all added', iterations: 6 });
    // The last hand-over left the summarised messages behind: the result starts after them, and says where.
    expect(result.transcript).toEqual({ total: 12, from: 5 });
    expect(result.messages).toHaveLength(7);
    expect((await temporalRunsOf(env.client, handle.workflowId)).map((run) => run.status.name)).toEqual([
      'CONTINUED_AS_NEW',
      'CONTINUED_AS_NEW',
      'COMPLETED',
    ]);
    // Compacted before iteration 4 (second Temporal run), handed over, and still in place for iteration 5 (the third).
    const summaryRequests = env.model.requests(summariser);
    expect(summaryRequests).toHaveLength(2);
    expect(summaryRequests[0]?.messages[0]).toEqual({ role: 'system', content: instructions });
    expect(textOf(summaryRequests[1])).toContain('SUMMARY-ONE');
    const fifth = env.model.requests(model)[4];
    expect(fifth?.messages[0]?.content).toContain('SUMMARY-ONE');
    expect(textOf(fifth)).not.toMatch(/step-1 |step-2 /);
  });

  test('a hand-over leaves the summarised messages behind: the model sees what it would have seen, and the transcript reads whole across the chain', async () => {
    // The same run twice: in one Temporal run, and continuing as new every two iterations.
    const runOnce = async (iterationsPerRun?: number) => {
      // Call ids of their own, the same in both runs (the scripted model numbers its calls across the file).
      const model = env.scenario(
        agentScript().map((entry, index) =>
          'toolCalls' in entry
            ? { ...entry, toolCalls: entry.toolCalls.map((call) => ({ ...call, id: `call_step_${index}` })) }
            : entry,
        ),
      );
      const summariser = env.scenario([{ content: 'SUMMARY-ONE' }, { content: 'SUMMARY-TWO' }]);
      const handle = await env.start({
        model,
        tools: ['calculator'],
        message: 'go',
        compaction: compaction(summariser),
        ...(iterationsPerRun === undefined ? {} : { iterationsPerRun }),
      });
      const result = (await handle.result()) as AgentResult;
      const transcript: ChatMessage[] = [];
      for await (const message of readAgentTranscript(env.client, handle.workflowId)) transcript.push(message);
      return {
        handle,
        result,
        transcript,
        requests: env.model.requests(model).map((request) => request.messages),
        summaries: env.model.requests(summariser).map((request) => request.messages),
      };
    };
    const whole = await runOnce();
    const handedOver = await runOnce(2);

    // What the model and the summariser were sent is the same, call for call.
    expect(handedOver.requests).toEqual(whole.requests);
    expect(handedOver.summaries).toEqual(whole.summaries);
    expect(handedOver.result.response).toBe(whole.result.response);
    // The whole transcript reads the same, the messages left behind answered by the Temporal runs that had them.
    expect(whole.transcript).toHaveLength(12);
    expect(handedOver.transcript).toEqual(whole.transcript);
    expect(whole.result.messages).toEqual(whole.transcript);
    expect(handedOver.result.messages).toEqual(whole.transcript.slice(handedOver.result.transcript?.from));
    expect(
      (await getAgentTranscript(env.client, handedOver.handle.workflowId, { from: 1, limit: 3 })).messages,
    ).toEqual(whole.transcript.slice(1, 4));

    // The hand-overs carried only what the model still sees: the third Temporal run started with the messages after the summary.
    const runs = await temporalRunsOf(env.client, handedOver.handle.workflowId);
    const carried = await Promise.all(
      runs.slice(1).map(async (run) => {
        const history = await env.client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
        const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[1];
        return payload === undefined
          ? undefined
          : (defaultPayloadConverter.fromPayload(payload) as { messages: unknown[]; segment?: unknown });
      }),
    );
    expect(carried.map((handOver) => [handOver?.messages.length, handOver?.segment])).toEqual([
      [5, undefined],
      [4, { base: 5, pinned: 0, runs: [{ runId: runs[1]?.runId, from: 0 }] }],
    ]);
    // The latest names the Temporal run that holds a message left behind, and lists the runs it knows: one hop.
    const page = await handedOver.handle.query(transcriptQuery, { from: 1, limit: 3 });
    expect(page).toEqual({
      total: 12,
      from: 1,
      messages: [],
      earlierRunId: runs[1]?.runId,
      runs: [{ runId: runs[1]?.runId, from: 0 }],
    });
    const state = await handedOver.handle.query(stateQuery);
    expect(state.transcript).toEqual({ total: 12, from: 5, pinned: 0 });
  });

  test('a run under maxTokens never calls the summariser', async () => {
    const model = env.scenario([step(1), { content: 'done' }]);
    const summariser = env.scenario([]);
    const result = (await (
      await env.start({ model, tools: ['calculator'], message: 'go', compaction: compaction(summariser) })
    ).result()) as AgentResult;
    expect(result.response).toBe('done');
    expect(env.model.requests(summariser)).toHaveLength(0);
  });
});

describe('a compaction that fails fails the run with CompactionFailed, before the model call', () => {
  async function failureOf(summariserSteps: Parameters<TestEnv['scenario']>[0]) {
    const model = env.scenario(agentScript());
    const summariser = env.scenario(summariserSteps);
    const handle = await env.start({ model, tools: ['calculator'], message: 'go', compaction: compaction(summariser) });
    const error = await handle.result().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    // The agent's model was called for iterations 1 to 3 only: never on the context past the limit.
    expect(env.model.requests(model)).toHaveLength(3);
    return (error as WorkflowFailedError).cause as Error & { type?: string; details?: unknown[] };
  }

  test('the provider refuses the summary request: the cause type is in the message and the details', async () => {
    const failure = await failureOf([{ error: { status: 404, message: 'no such model' } }]);
    expect(failure.type).toBe('CompactionFailed');
    expect(failure.message).toMatch(/^Compaction failed \(ModelCall\.NotFound\): 404 from model/);
    expect(failure.details?.[0]).toMatchObject({ causeType: 'ModelCall.NotFound', iterations: 4, messageCount: 7 });
  });

  test('the model answers without text', async () => {
    const failure = await failureOf([{ content: '   ' }]);
    expect(failure.type).toBe('CompactionFailed');
    expect(failure.message).toContain('without any text');
    expect(failure.details?.[0]).toMatchObject({ causeType: null, iterations: 4 });
  });
});
