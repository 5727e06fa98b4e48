import { decideToolCall, followRunEvents } from '../../src/client/run-control';
import { getAgentState } from '../../src/client';
import { eventsQuery, stateQuery } from '../../src/workflow-contract/definitions';
import type { AgentWorkflowResult } from '../../src/shared/result-answer';
import { type RunEvent } from '../../src/shared/run-events';
import { TEST_TOKEN, TestApi, readEventStream, type SseEvent } from '../helpers/api';
import { countingClient, type CountingClient } from '../helpers/counting-client';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * Following a run costs about one query (one billed action) per iteration, however long the run and however many
 * event streams of one API process read it; a completed run is read from its result, with no query and no worker.
 */

let env: TestEnv;
let counting: CountingClient;
let api: TestApi;
beforeAll(async () => {
  env = await TestEnv.create();
  counting = await countingClient();
  api = await TestApi.start(env, { client: counting.client });
});
afterAll(async () => {
  await api.close();
  await counting.close();
  await env.close();
});

const calc = (expression: string, id: string, delayMs = 0) => ({
  toolCalls: [{ name: 'calculator', arguments: { expression }, id }],
  delayMs,
});
const auth = { authorization: `Bearer ${TEST_TOKEN}` };
const queries = () => counting.count('queryWorkflow');

/** A run of `iterations` model calls (each `delayMs` long, each with a calculator call), then an answer. */
function calculatorRun(iterations: number, delayMs: number) {
  const steps = Array.from({ length: iterations - 1 }, (_, index) => calc(`${index} + 1`, `call_${index}`, delayMs));
  return env.start({
    model: env.scenario([...steps, { content: 'done', delayMs }]),
    tools: ['calculator'],
    message: 'go',
  });
}

/** Every event of the run's log, as the `events` query answers it. */
async function fullLog(workflowId: string): Promise<RunEvent[]> {
  return (await env.client.workflow.getHandle(workflowId).query(eventsQuery, { after: 0 })).events;
}

/**
 * Events without their `at`: a query that replays an ended run can stamp an event written after a local activity with
 * its task's start, where the live run stamped the activity's end, so only the live log is compared with times.
 */
function untimed(events: readonly RunEvent[]): Omit<RunEvent, 'at'>[] {
  return events.map(({ at: _at, ...rest }) => rest);
}

function seqsOf(events: SseEvent[]): number[] {
  return events.filter((event) => event.id !== undefined).map((event) => Number(event.id));
}

describe('followers', () => {
  test('a follower reads the whole log once, in order, across approvals and continue-as-new, at about one query an iteration', async () => {
    const model = env.scenario([
      calc('1 + 1', 'call_0', 300),
      calc('2 + 2', 'call_1', 300),
      { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' }, id: 'call_w' }], delayMs: 300 },
      calc('3 + 3', 'call_2', 300),
      calc('4 + 4', 'call_3', 300),
      { content: 'done', delayMs: 300 },
    ]);
    const handle = await env.start({
      model,
      message: 'go',
      tools: ['calculator', 'write_file'],
      approval: { tools: ['write_file'] },
      iterationsPerRun: 2,
    });
    const before = queries();
    const seen: RunEvent[] = [];
    for await (const event of followRunEvents(counting.client, handle.workflowId)) {
      seen.push(event);
      if (event.type === 'approval-request')
        await decideToolCall(env.client, handle.workflowId, { callId: event.callId, decision: 'approve' });
    }
    const spent = queries() - before;

    // The live log, as the run's result carries it (whole here: fewer than the events it carries).
    const { closedRun } = (await handle.result()) as AgentWorkflowResult;
    const log = closedRun?.events.recent ?? [];
    expect(closedRun?.events.nextSeq).toBe(log.length + 1);
    expect(log.some((event) => event.type === 'run-hand-over')).toBe(true);
    expect(seen).toEqual(log);
    expect(seen.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    // At most 1.5 queries an iteration, plus the first read and one per hand-over; the last is read from the result.
    const handOvers = log.filter((event) => event.type === 'run-hand-over').length;
    expect(spent).toBeLessThanOrEqual(6 * 1.5 + 1 + handOvers);
  });

  test('N event streams through one API process cost the queries of one, and each reads the whole log', async () => {
    const oneClient = await calculatorRun(5, 400);
    let before = queries();
    const alone = await readEventStream(`${api.url}/runs/${oneClient.workflowId}/events`, auth);
    const spentAlone = queries() - before;

    const threeClients = await calculatorRun(5, 400);
    before = queries();
    const url = `${api.url}/runs/${threeClients.workflowId}/events`;
    const streams = await Promise.all([
      readEventStream(url, auth),
      readEventStream(url, auth),
      readEventStream(url, auth),
    ]);
    const spentThree = queries() - before;

    const log = await fullLog(threeClients.workflowId);
    for (const stream of streams) {
      expect(seqsOf(stream.events)).toEqual(log.map((event) => event.seq));
      expect(stream.events.at(-1)?.event).toBe('end');
    }
    expect(seqsOf(alone.events)).toEqual((await fullLog(oneClient.workflowId)).map((event) => event.seq));
    expect(spentAlone).toBeLessThanOrEqual(5 * 1.5 + 1);
    expect(spentThree).toBeLessThanOrEqual(spentAlone + 1);
  });

  test('a stream that resumes from an old Last-Event-ID, while another reads the run, gets every event after it', async () => {
    const handle = await calculatorRun(4, 500);
    const url = `${api.url}/runs/${handle.workflowId}/events`;
    const first = readEventStream(url, auth);
    await waitFor(
      () => fullLog(handle.workflowId),
      (events) => events.length >= 6,
    );
    const resumed = await readEventStream(url, { ...auth, 'last-event-id': '2' });
    const log = await fullLog(handle.workflowId);
    expect(seqsOf(resumed.events)).toEqual(log.filter((event) => event.seq > 2).map((event) => event.seq));
    expect(seqsOf((await first).events)).toEqual(log.map((event) => event.seq));
  });

  test('a run terminated in Temporal ends its streams', async () => {
    const handle = await env.start({
      model: env.scenario([
        { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'b' }, id: 'call_w' }] },
      ]),
      message: 'go',
      tools: ['write_file'],
      approval: { tools: ['write_file'] },
    });
    const stream = readEventStream(`${api.url}/runs/${handle.workflowId}/events`, auth);
    await waitFor(
      () => fullLog(handle.workflowId),
      (events) => events.some((event) => event.type === 'approval-request'),
    );
    await handle.terminate('from the test');
    const { events } = await stream;
    expect(events.some((event) => event.event === 'approval-request')).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: 'end', data: { outcome: 'terminated' } });
  });

  test("a completed run's state and events are read with its worker stopped, and cost no query", async () => {
    const handle = await calculatorRun(3, 0);
    await handle.result();
    const log = await fullLog(handle.workflowId);
    const queried = await env.client.workflow.getHandle(handle.workflowId).query(stateQuery);
    await env.stopWorker();
    try {
      const before = queries();
      await expectReadWithoutWorker(handle.workflowId, queried, log);
      const answer = await api.get(`/runs/${handle.workflowId}`);
      expect(answer.status).toBe(200);
      expect(answer.body.state.messages).toEqual(queried.messages);
      const stream = await readEventStream(`${api.url}/runs/${handle.workflowId}/events`, auth);
      expect(seqsOf(stream.events)).toEqual(log.map((event) => event.seq));
      const atEnd = await api.get(`/runs/${handle.workflowId}/events`, { 'last-event-id': String(log.length) });
      expect(atEnd.status).toBe(204);
      expect(queries() - before).toBe(0);
    } finally {
      await env.startWorker();
    }
  });

  test('a run terminated in Temporal is read from its replayed history with its worker stopped, and costs no query', async () => {
    const handle = await env.start({
      model: env.scenario([
        { toolCalls: [{ name: 'write_file', arguments: { path: 't.txt', content: 't' }, id: 'call_t' }] },
      ]),
      message: 'go',
      tools: ['write_file'],
      approval: { tools: ['write_file'] },
    });
    const log = await waitFor(
      () => fullLog(handle.workflowId),
      (events) => events.some((event) => event.type === 'approval-request'),
    );
    const queried = await env.client.workflow.getHandle(handle.workflowId).query(stateQuery);
    expect(queried.status).toBe('waiting_for_approval');
    await handle.terminate('from the test');
    await env.stopWorker();
    try {
      const before = queries();
      // The run as its history left it, ended from outside: nothing it waited for is pending any more.
      const left: Partial<typeof queried> = { ...queried };
      delete left.waitingFor;
      const ended = {
        ...left,
        status: 'terminated',
        pendingApprovals: [],
        activity: 'closed by Temporal: from the test',
        terminationReason: { type: 'external', via: 'temporal', reason: 'from the test' },
      };
      expect(await getAgentState(counting.client, handle.workflowId)).toEqual(ended);
      const followed: RunEvent[] = [];
      for await (const event of followRunEvents(counting.client, handle.workflowId)) followed.push(event);
      expect(untimed(followed)).toEqual(untimed(log));
      const answer = await api.get(`/runs/${handle.workflowId}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ temporal_status: 'TERMINATED', state: ended });
      const stream = await readEventStream(`${api.url}/runs/${handle.workflowId}/events`, auth);
      expect(seqsOf(stream.events)).toEqual(log.map((event) => event.seq));
      expect(stream.events.at(-1)).toMatchObject({ event: 'end', data: { outcome: 'terminated' } });
      const atEnd = await api.get(`/runs/${handle.workflowId}/events`, { 'last-event-id': String(log.length) });
      expect(atEnd.status).toBe(204);
      expect(queries() - before).toBe(0);
    } finally {
      await env.startWorker();
    }
  });

  test("a failed run's state and events are read from its failure with its worker stopped, and cost no query", async () => {
    const handle = await env.start({ model: env.scenario([{ content: 'unused' }]), tools: [] });
    await expect(handle.result()).rejects.toThrow();
    const log = await fullLog(handle.workflowId);
    expect(log.at(-1)).toMatchObject({ type: 'run-end', status: 'failed' });
    const queried = await env.client.workflow.getHandle(handle.workflowId).query(stateQuery);
    await env.stopWorker();
    try {
      const before = queries();
      await expectReadWithoutWorker(handle.workflowId, queried, log);
      const outcome = await api.get(`/runs/${handle.workflowId}/result`);
      expect(outcome.body).toMatchObject({ outcome: 'failed', error: { type: 'InvalidAgentInput' } });
      expect(queries() - before).toBe(0);
    } finally {
      await env.startWorker();
    }
  });
});

/**
 * An ended run read by the client with no worker running: its state as the `state` query answered it (the last
 * event's time aside), and following it yields the live log.
 */
async function expectReadWithoutWorker(
  workflowId: string,
  queried: Awaited<ReturnType<typeof getAgentState>>,
  log: RunEvent[],
): Promise<void> {
  const { lastEvent, ...state } = await getAgentState(counting.client, workflowId);
  expect(state).toEqual({ ...queried, lastEvent: undefined });
  expect(untimed([lastEvent as RunEvent])).toEqual(untimed([queried.lastEvent as RunEvent]));
  const followed: RunEvent[] = [];
  for await (const event of followRunEvents(counting.client, workflowId)) followed.push(event);
  expect(untimed(followed)).toEqual(untimed(log));
}
