import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { sendChatTurn } from '../../src/client/conversations';
import { decideToolCall, followRunEvents, listAgentRuns } from '../../src/client/run-control';
import { temporalRunsOf } from '../../src/temporal/run-chain';
import { eventsQuery, stateQuery } from '../../src/workflow-contract/definitions';
import { type AgentResult } from '../../src/shared/agent-result';
import { type ChatMessage } from '../../src/shared/messages';
import { type RunEvent } from '../../src/shared/run-events';
import { TEST_TOKEN, readEventStream } from '../helpers/api';
import { waitFor, waitForState } from '../helpers/wait';
import { useApiWorld } from '../helpers/api-world';

/**
 * A long run continues as new between iterations (every `iterationsPerRun`,
 * or when Temporal suggests it), so its history starts small again; to its
 * callers it stays one run with one id, one result and one event log.
 */

const world = useApiWorld();

const calc = (expression: string, id: string) => ({
  toolCalls: [{ name: 'calculator', arguments: { expression }, id }],
});

/** The Temporal runs of `workflowId`, oldest first. */
async function temporalRuns(workflowId: string): Promise<{ runId: string; status: string }[]> {
  return (await temporalRunsOf(world.env.client, workflowId)).map((run) => ({
    runId: run.runId,
    status: run.status.name,
  }));
}

describe('continue-as-new', () => {
  test('every N iterations: one result with every counter, message and generated message, and one event log numbered on', async () => {
    const model = world.env.scenario([
      // Each call reports cached tokens (1 to 5) and the last reasoning tokens: summed across the hand-overs.
      ...['1 + 1', '2 + 2', '3 + 3', '4 + 4', '5 + 5'].map((expression, index) => ({
        ...calc(expression, `call_${index}`),
        cachedTokens: index + 1,
      })),
      { content: 'done', reasoningTokens: 2 },
    ]);
    const earlier: ChatMessage[] = [
      { role: 'user', content: 'earlier question' },
      { role: 'assistant', content: 'earlier answer' },
    ];
    const handle = await world.env.start({
      model,
      tools: ['calculator'],
      messages: earlier,
      message: 'add them up',
      iterationsPerRun: 2,
    });
    const result = (await handle.result()) as AgentResult;

    expect(result).toMatchObject({
      response: 'done',
      iterations: 6,
      invocations: 6,
      terminationReason: { type: 'complete' },
    });
    expect(result.usage.totalTokens).toBeGreaterThan(0);
    expect(result.usage).toMatchObject({ cachedPromptTokens: 15, reasoningTokens: 2 });
    expect(result.messages).toHaveLength(2 + 1 + 5 * 2 + 1);
    expect(result.messages.slice(0, 3).map((message) => message.content)).toEqual([
      'earlier question',
      'earlier answer',
      'add them up',
    ]);
    // Generated messages begin after the run's own input, not after the last Temporal run's.
    expect(result.generatedMessages[0]).toEqual({ sender: 'human', message: 'add them up' });
    expect(result.generatedMessages).toHaveLength(1 + 5 * 2 + 1);
    // The model saw the whole conversation on every call, across the hand-overs.
    expect(
      world.env.model
        .requests(model)
        .map((request) => request.messages.filter((message) => message.role !== 'system').length),
    ).toEqual([3, 5, 7, 9, 11, 13]);

    const runs = await temporalRuns(handle.workflowId);
    expect(runs.map((run) => run.status)).toEqual(['CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'COMPLETED']);

    const { events } = await handle.query(eventsQuery, {});
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(
      events
        .filter((event) => ['run-start', 'run-hand-over', 'run-take-over', 'run-end'].includes(event.type))
        .map((event) => [event.type, 'iteration' in event ? event.iteration : null]),
    ).toEqual([
      ['run-start', null],
      ['run-hand-over', 2],
      ['run-take-over', 2],
      ['run-hand-over', 4],
      ['run-take-over', 4],
      ['run-end', null],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', usage: result.usage });
    expect(events.find((event) => event.type === 'run-take-over' && event.iteration === 4)).toMatchObject({
      temporalRuns: 3,
    });
    expect(await handle.query(stateQuery)).toMatchObject({ status: 'completed', iteration: 6, invocations: 6 });
    // Listed once, as it ended: the earlier Temporal runs closed with the state they handed over with.
    const listed = await waitFor(
      () => listAgentRuns(world.env.client, { query: `WorkflowId = '${handle.workflowId}'`, limit: 10 }),
      (rows) => rows.length === 1 && rows[0]?.status === 'completed',
    );
    expect(listed).toEqual([
      expect.objectContaining({
        workflowId: handle.workflowId,
        temporalStatus: 'COMPLETED',
        status: 'completed',
        iterations: 6,
      }),
    ]);
  });

  test('limits count the whole run, not each Temporal run', async () => {
    const model = world.env.scenario(
      ['1', '2', '3', '4', '5'].map((expression, index) => calc(expression, `call_${index}`)),
    );
    const handle = await world.env.start({
      model,
      tools: ['calculator'],
      message: 'go',
      iterationsPerRun: 1,
      maxInvocations: 3,
    });
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toMatchObject({
      type: 'MaxInvocationsExceeded',
      message: 'Max invocations exceeded',
    });
    expect(world.env.model.requests(model)).toHaveLength(3);
  });

  test("the run's timeout keeps its first deadline; it does not start again with each Temporal run", async () => {
    // Each iteration takes 1.5 s and is a Temporal run of its own: a timer that started again would never fire.
    const model = world.env.scenario(
      Array.from({ length: 12 }, (_, index) => ({ ...calc(`${index} + 1`, `call_${index}`), delayMs: 1_500 })),
    );
    const handle = await world.env.start({
      model,
      tools: ['calculator'],
      message: 'go',
      iterationsPerRun: 1,
      timeout: '5s',
    });
    const result = (await handle.result()) as AgentResult;
    expect(result.terminationReason).toEqual({ type: 'timeout', limit: '5s' });
    expect(world.env.model.requests(model).length).toBeLessThan(12);
  });

  test('a follower reads one contiguous event stream across the hand-overs; an approval after one is decided as usual', async () => {
    const workflowId = `can-follow-${randomUUID().slice(0, 8)}`;
    const model = world.env.scenario([
      calc('2 + 2', 'call_first'),
      calc('3 + 3', 'call_second'),
      {
        toolCalls: [{ name: 'write_file', arguments: { path: 'after-can.txt', content: 'written' }, id: 'call_write' }],
      },
      { content: 'written after approval' },
    ]);
    const handle = await world.env.client.workflow.start('agentWorkflow', {
      taskQueue: world.env.taskQueue,
      workflowId,
      args: [
        {
          model,
          tools: ['calculator', 'write_file'],
          message: 'go',
          iterationsPerRun: 1,
          approval: { tools: ['write_file'] },
        },
      ],
    });
    const followed: RunEvent[] = [];
    const following = (async () => {
      for await (const event of followRunEvents(world.env.client, workflowId, { pollMs: 100 })) followed.push(event);
    })();

    const waiting = await waitForState(
      world.env.client.workflow.getHandle(workflowId),
      (state) => state.status === 'waiting_for_approval',
    );
    expect(waiting).toMatchObject({ iteration: 3, pendingApprovals: [{ callId: 'call-3-1' }] });
    await decideToolCall(world.env.client, workflowId, { callId: 'call-3-1', decision: 'approve' });
    await following;

    expect(((await handle.result()) as AgentResult).response).toBe('written after approval');
    expect(followed.map((event) => event.seq)).toEqual(followed.map((_, index) => index + 1));
    const milestones = [
      'run-start',
      'run-hand-over',
      'run-take-over',
      'approval-request',
      'approval-decision',
      'run-end',
    ];
    expect(followed.filter((event) => milestones.includes(event.type)).map((event) => event.type)).toEqual([
      'run-start',
      'run-hand-over',
      'run-take-over',
      'run-hand-over',
      'run-take-over',
      'approval-request', // in the third Temporal run
      'approval-decision',
      'run-hand-over',
      'run-take-over',
      'run-end',
    ]);
  });

  test("a conversation turn whose run continues as new: the turn's generated messages and the history are whole", async () => {
    const contextId = `can-turn-${randomUUID().slice(0, 8)}`;
    const model = world.env.scenario([
      { content: 'Hello.' },
      calc('6 * 7', 'call_a'),
      calc('42 + 1', 'call_b'),
      { content: 'It is 43.' },
    ]);
    const settings = { model, tools: ['calculator'], iterationsPerRun: 1 };
    await sendChatTurn(
      world.env.client,
      contextId,
      { kind: 'chat', message: 'hi', settings },
      { taskQueue: world.env.taskQueue },
    );
    const turn = await sendChatTurn(
      world.env.client,
      contextId,
      { kind: 'chat', message: 'what is 6 * 7 + 1?', settings },
      { taskQueue: world.env.taskQueue },
    );

    expect(turn.response).toBe('It is 43.');
    expect(turn.generatedMessages).toEqual([
      { sender: 'human', message: 'what is 6 * 7 + 1?' },
      // Runner ids count model calls across the hand-overs: unique within the run.
      { type: 'tool_call', tool_call_id: 'call-1-1', tool_name: 'calculator', tool_input: { expression: '6 * 7' } },
      { type: 'tool_response', tool_call_id: 'call-1-1', tool_output: '42' },
      { type: 'tool_call', tool_call_id: 'call-2-1', tool_name: 'calculator', tool_input: { expression: '42 + 1' } },
      { type: 'tool_response', tool_call_id: 'call-2-1', tool_output: '43' },
      { sender: 'ai', message: 'It is 43.' },
    ]);
    const runs = await temporalRuns(turn.runId);
    expect(runs.map((run) => run.status)).toEqual(['CONTINUED_AS_NEW', 'CONTINUED_AS_NEW', 'COMPLETED']);
  });

  test('a follower further behind than the carried events is told how many it missed, then reads on (SSE)', async () => {
    // 52 iterations of four events each pass the 200 events a hand-over carries.
    const model = world.env.scenario([
      ...Array.from({ length: 53 }, (_, index) => calc(`${index} + 1`, `call_${index}`)),
      { content: 'done' },
    ]);
    const handle = await world.env.start({
      model,
      tools: ['calculator'],
      message: 'count',
      iterationsPerRun: 52,
      maxInvocations: 60,
    });
    await handle.result();

    const stream = await readEventStream(`${world.api.url}/runs/${encodeURIComponent(handle.workflowId)}/events`, {
      authorization: `Bearer ${TEST_TOKEN}`,
    });
    const [first, second] = stream.events;
    expect(first).toMatchObject({ event: 'events-missed', data: { missed: expect.any(Number) } });
    expect(first?.id).toBeUndefined();
    const missed = (first?.data as { missed: number }).missed;
    expect(missed).toBeGreaterThan(0);
    // The stream reads on from the oldest event kept, in order, to the end.
    expect(Number(second?.id)).toBe(missed + 1);
    const ids = stream.events.filter((event) => event.id !== undefined).map((event) => Number(event.id));
    expect(ids).toEqual(ids.map((_, index) => missed + 1 + index));
    expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { outcome: 'completed' } });
  });
});
