import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { followRunEvents } from '../../src/client';
import { isModelStreamEvent, type ModelStreamEvent } from '../../src/shared/model-stream-events';
import { type AgentResult } from '../../src/shared/agent-result';
import { type RunEvent } from '../../src/shared/run-events';
import { TEST_TOKEN, TestApi, readEventStream, type SseEvent } from '../helpers/api';
import { TestEnv } from '../helpers/test-env';

/**
 * The model's answer streamed to followers, end to end: a real worker whose
 * `callModel` streams from the scripted model (a token every few tens of
 * ms), the real API's Server-Sent Events, the client's `followRunEvents`,
 * and the chat endpoints' `chat.completion.chunk` stream.
 */

let env: TestEnv;
let api: TestApi;
beforeAll(async () => {
  env = await TestEnv.create();
  api = await TestApi.start(env);
});
afterAll(async () => {
  await api.close();
  await env.close();
});

const auth = { authorization: `Bearer ${TEST_TOKEN}` };
const LONG_TEXT =
  'Streaming is the model writing its answer one token at a time, while you watch it arrive over the wire.';

async function startRun(input: Record<string, unknown>): Promise<string> {
  const answer = await api.post('/runs', { input });
  expect(answer.status).toBe(202);
  return answer.body.run_id as string;
}

async function followOverSse(runId: string): Promise<SseEvent[]> {
  const stream = await readEventStream(`${api.url}/runs/${encodeURIComponent(runId)}/events`, auth);
  expect(stream.status).toBe(200);
  return stream.events;
}

const textOf = (events: SseEvent[], attempt?: number) =>
  events
    .filter((event) => event.event === 'model-text-delta' && (attempt === undefined || event.data.attempt === attempt))
    .map((event) => event.data.text as string)
    .join('');

describe('model deltas over Server-Sent Events', () => {
  test('text deltas arrive in order, without ids, before the model-response; they concatenate to the recorded message', async () => {
    const model = env.scenario([{ content: LONG_TEXT, tokenDelayMs: 40 }]);
    const runId = await startRun({ model, tools: [], message: 'stream please' });
    const events = await followOverSse(runId);

    const deltas = events.filter((event) => event.event === 'model-text-delta');
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltas.every((event) => event.id === undefined)).toBe(true);
    expect(deltas.map((event) => event.data.index)).toEqual(
      [...deltas.map((event) => event.data.index as number)].sort((a, b) => a - b),
    );
    expect(deltas.every((event) => event.data.attempt === 1)).toBe(true);
    expect(textOf(events)).toBe(LONG_TEXT);
    const types = events.map((event) => event.event);
    expect(types.lastIndexOf('model-text-delta')).toBeLessThan(types.indexOf('model-response'));
    // The durable events keep their numbering: deltas are not events of the log.
    const durable = events.filter((event) => event.id !== undefined);
    expect(durable.map((event) => Number(event.id))).toEqual(durable.map((_, index) => index + 1));
    const end = events.at(-1);
    expect(end).toMatchObject({ event: 'end', data: { outcome: 'completed', result: { response: LONG_TEXT } } });
    const result = end?.data.result as AgentResult;
    expect(result.messages.at(-1)).toMatchObject({ role: 'assistant', content: LONG_TEXT });
    // Nor are they in the state's log.
    const state = await api.get(`/runs/${encodeURIComponent(runId)}`);
    expect(JSON.stringify(state.body)).not.toContain('model-text-delta');
  }, 60_000);

  test('tool-call deltas: the id and name first, then the arguments in fragments that join to the recorded call', async () => {
    const model = env.scenario([
      {
        toolCalls: [{ name: 'calculator', arguments: { expression: '(6 * 7) + (100 / 4) - 3' }, id: 'call_streamed' }],
        tokenDelayMs: 60,
      },
      { content: 'It is 64.' },
    ]);
    const runId = await startRun({ model, tools: ['calculator'], message: 'compute' });
    const events = await followOverSse(runId);

    const fragments = events.filter((event) => event.event === 'model-tool-call-delta').map((event) => event.data);
    expect(fragments.length).toBeGreaterThan(2);
    expect(fragments[0]).toMatchObject({ toolIndex: 0, id: 'call_streamed', name: 'calculator' });
    expect(fragments.map((fragment) => fragment.arguments ?? '').join('')).toBe(
      '{"expression":"(6 * 7) + (100 / 4) - 3"}',
    );
    const types = events.map((event) => event.event);
    expect(types.lastIndexOf('model-tool-call-delta')).toBeLessThan(types.indexOf('model-response'));
    expect(events.find((event) => event.event === 'tool-call-start')?.data).toMatchObject({
      arguments: { expression: '(6 * 7) + (100 / 4) - 3' },
    });
  }, 60_000);

  test("a stream that breaks mid-way is retried: followers are told to discard it, and the recorded message is the retry's", async () => {
    const broken =
      'This first attempt will never be finished because the connection drops somewhere in the middle of it.';
    const retried = 'The second attempt completes, and this is what the run records.';
    const model = env.scenario([
      { content: broken, tokenDelayMs: 40, breakAfterChunks: 12 },
      { content: retried, tokenDelayMs: 20 },
    ]);
    const runId = await startRun({ model, tools: [], message: 'try twice' });
    const events = await followOverSse(runId);

    const types = events.map((event) => event.event);
    const reset = events.find((event) => event.event === 'model-delta-reset');
    expect(reset?.data).toMatchObject({ attempt: 1, reason: expect.stringContaining('attempt failed') });
    expect(broken.startsWith(textOf(events, 1))).toBe(true);
    expect(textOf(events, 1).length).toBeGreaterThan(0);
    expect(textOf(events, 2)).toBe(retried);
    // Order: the first attempt's text, the reset, the retry's text, the recorded answer.
    const firstOfRetry = events.findIndex((event) => event.event === 'model-text-delta' && event.data.attempt === 2);
    expect(types.indexOf('model-delta-reset')).toBeLessThan(firstOfRetry);
    expect(firstOfRetry).toBeLessThan(types.indexOf('model-response'));
    expect(events.at(-1)).toMatchObject({ data: { outcome: 'completed', result: { response: retried } } });
    expect(env.model.requests(model)).toHaveLength(2);
  }, 60_000);

  test('a hostile stream (a garbage chunk after some text) ends the run as today: ModelCall.InvalidResponse after 3 attempts, each shown attempt reset', async () => {
    const hostile = {
      rawStream: {
        chunks: [
          ...'Some text before the garbage arrives in this stream'.split(' ').map((word) => ({
            id: 'x',
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta: { content: `${word} ` }, finish_reason: null }],
          })),
          '<html>502 Bad Gateway</html>',
        ],
        tokenDelayMs: 40,
      },
    };
    const model = env.scenario([hostile, hostile, hostile]);
    const runId = await startRun({ model, tools: [], message: 'break it' });
    const events = await followOverSse(runId);

    expect(events.at(-1)).toMatchObject({
      data: {
        outcome: 'failed',
        error: { type: 'ModelCall.InvalidResponse', message: expect.stringContaining('chunk 10 is not JSON') },
      },
    });
    const resets = events
      .filter((event) => event.event === 'model-delta-reset')
      .map((event) => event.data.attempt as number);
    const shownAttempts = [
      ...new Set(
        events.filter((event) => event.event === 'model-text-delta').map((event) => event.data.attempt as number),
      ),
    ];
    expect(shownAttempts.length).toBeGreaterThan(0);
    for (const attempt of shownAttempts) expect(resets).toContain(attempt);
    expect(events.some((event) => event.event === 'model-response')).toBe(false);
  }, 60_000);

  test('a streamed call adds nothing to the history: the same events as the same run not streamed', async () => {
    const model = env.scenario([{ content: LONG_TEXT, tokenDelayMs: 20 }]);
    const runId = await startRun({ model, tools: [], message: 'count my history' });
    await followOverSse(runId);
    const history = (await env.client.workflow.getHandle(runId).fetchHistory()).events ?? [];
    // The catalog (a local activity, one marker) and one callModel, scheduled, started and completed once; heartbeats and deltas are nowhere.
    expect(history.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? [])).toEqual([
      'callModel',
    ]);
    expect(history.filter((event) => event.activityTaskCompletedEventAttributes)).toHaveLength(1);
    expect(
      history.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
    ).toHaveLength(1);
    expect(
      history.some(
        (event) =>
          event.workflowExecutionSignaledEventAttributes || event.workflowExecutionUpdateAcceptedEventAttributes,
      ),
    ).toBe(false);
  }, 60_000);
});

describe('model deltas from the client', () => {
  test("a later call's stream waits for its own iteration-start, however far the durable events lag", async () => {
    // The follower reads the first call's stream to its end and looks again at once; the calculator is local, so the
    // second call is already streaming while the durable events (read every 250 ms) are still in the first iteration.
    // Its deltas must not land there.
    const second = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
    const model = env.scenario([
      {
        content: 'Adding first, then the second call.',
        toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }],
        tokenDelayMs: 25,
      },
      { content: second, tokenDelayMs: 25 },
    ]);
    const handle = await env.start({ model, tools: ['calculator'], message: 'two calls' });
    const seen: (RunEvent | ModelStreamEvent)[] = [];
    for await (const event of followRunEvents(env.client, handle.workflowId, { deltas: true })) seen.push(event);

    // The text each iteration's deltas carried, by the last iteration-start before them.
    const textByIteration = new Map<number, string>();
    let iteration = 0;
    for (const event of seen) {
      if (event.type === 'iteration-start') iteration = event.iteration;
      if (event.type === 'model-text-delta')
        textByIteration.set(iteration, (textByIteration.get(iteration) ?? '') + event.text);
    }
    expect(textByIteration.get(1) ?? '').not.toContain('word');
    expect(textByIteration.get(2)).toBe(second);
  }, 60_000);

  test('followRunEvents({ deltas: true }) yields the deltas between the durable events; without it, none', async () => {
    const model = env.scenario([{ reasoning: 'Let me think about this.', content: LONG_TEXT, tokenDelayMs: 30 }]);
    const handle = await env.start({ model, tools: [], message: 'client stream' });
    const seen: (RunEvent | ModelStreamEvent)[] = [];
    for await (const event of followRunEvents(env.client, handle.workflowId, { deltas: true })) seen.push(event);

    const text = seen.flatMap((event) => (event.type === 'model-text-delta' ? [event.text] : [])).join('');
    const reasoning = seen.flatMap((event) => (event.type === 'model-reasoning-delta' ? [event.text] : [])).join('');
    expect(text).toBe(LONG_TEXT);
    expect(reasoning).toBe('Let me think about this.');
    expect(seen.at(-1)?.type).toBe('run-end');

    const durableOnly: RunEvent[] = [];
    for await (const event of followRunEvents(env.client, handle.workflowId)) durableOnly.push(event);
    expect(durableOnly.some((event) => isModelStreamEvent(event))).toBe(false);
    // The same events, but not always the same `at`: a follower may read an event from a workflow task that is
    // then retried (slow under load), whose own events carry the retry's time.
    const withoutTime = ({ at: _at, ...event }: RunEvent) => event;
    expect(durableOnly.map(withoutTime)).toEqual(
      seen.filter((event): event is RunEvent => !isModelStreamEvent(event)).map(withoutTime),
    );
  }, 60_000);
});

describe('chat endpoints, streamed', () => {
  /** Posts with `Accept: text/event-stream`; answers the status, content type and each `data:` of the stream. */
  async function postStreamed(
    path: string,
    body: unknown,
  ): Promise<{ status: number; contentType: string | null; data: string[] }> {
    const response = await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const data = text.split('\n\n').flatMap((block) =>
      block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6)),
    );
    return { status: response.status, contentType: response.headers.get('content-type'), data };
  }

  test("POST /chat with Accept: text/event-stream answers chat.completion.chunk events, the turn's answer last, then [DONE]", async () => {
    const model = env.scenario([{ content: LONG_TEXT, tokenDelayMs: 40 }]);
    const contextId = `ctx-${randomUUID().slice(0, 8)}`;
    const answer = await postStreamed('/chat', { context_id: contextId, message: 'stream the chat', model });

    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    expect(answer.data.at(-1)).toBe('[DONE]');
    const chunks = answer.data.slice(0, -1).map(
      (data) =>
        JSON.parse(data) as {
          object: string;
          choices: { delta: { content?: string }; finish_reason: string | null }[];
          agent_runner?: Record<string, unknown>;
        },
    );
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(10);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(LONG_TEXT);
    const last = chunks.at(-1);
    expect(last?.choices[0]?.finish_reason).toBe('stop');
    expect(last?.agent_runner).toMatchObject({
      response: LONG_TEXT,
      saved_ai_messages: true,
      generated_messages: [
        { sender: 'human', message: 'stream the chat' },
        { sender: 'ai', message: LONG_TEXT },
      ],
      turn: 1,
    });
  }, 60_000);

  test('a turn refused before it starts is answered as JSON with its status, streamed or not', async () => {
    const answer = await postStreamed('/chat/invoke', { context_id: `ctx-${randomUUID().slice(0, 8)}` });
    expect(answer.status).toBe(409);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.data).toEqual([]);
  }, 60_000);

  test('a streamed request while another turn runs is refused as busy, without streaming the other turn', async () => {
    const contextId = `ctx-${randomUUID().slice(0, 8)}`;
    const slow = env.scenario([{ content: LONG_TEXT, tokenDelayMs: 80 }]);
    const first = api.post('/chat', { context_id: contextId, message: 'the long one', model: slow });
    await waitForActiveTurn(contextId);
    const second = await postStreamed('/chat', {
      context_id: contextId,
      message: 'too soon',
      model: env.scenario([{ content: 'never' }]),
    });
    expect(second.status).toBe(409);
    expect(second.contentType).toMatch(/^application\/json/);
    expect(second.data).toEqual([]);
    expect((await first).status).toBe(200);
  }, 60_000);

  async function waitForActiveTurn(contextId: string): Promise<void> {
    for (let tries = 0; tries < 200; tries += 1) {
      const conversation = await api.get(`/conversations/${contextId}`);
      if (conversation.status === 200 && conversation.body.active_turn !== null) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no turn became active on ${contextId}`);
  }
});

describe("a follower whose worker's stream port answers nothing (a firewall that drops packets)", () => {
  test('it says so once, after the connect timeout, not at every call, and still gets every durable event', async () => {
    // Accepts connections and never answers, as a port behind a dropping firewall looks from the follower's side.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const firewalled = await TestEnv.create({ streamListener: { host: '127.0.0.1', port: 0, publicUrl: silentUrl } });
    try {
      // The first call streams for longer than the connect timeout; three calls in all.
      const slow = Array.from({ length: 40 }, (_, index) => `slow${index}`).join(' ');
      const model = firewalled.scenario([
        { content: slow, toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }], tokenDelayMs: 175 },
        { toolCalls: [{ name: 'calculator', arguments: { expression: '2+2' } }], tokenDelayMs: 20 },
        { content: 'Done.', tokenDelayMs: 20 },
      ]);
      const handle = await firewalled.start({ model, tools: ['calculator'], message: 'behind a firewall' });
      const seen: (RunEvent | ModelStreamEvent)[] = [];
      for await (const event of followRunEvents(firewalled.client, handle.workflowId, { deltas: true }))
        seen.push(event);

      const notices = seen.filter((event) => event.type === 'model-stream-unreachable');
      expect(notices).toEqual([
        {
          type: 'model-stream-unreachable',
          activityId: expect.any(String),
          attempt: 1,
          reason: "the worker's stream port did not answer within 5 s",
        },
      ]);
      expect(seen.some((event) => event.type === 'model-text-delta')).toBe(false);
      expect(seen.filter((event) => event.type === 'model-response')).toHaveLength(3);
      const durableOnly: RunEvent[] = [];
      for await (const event of followRunEvents(firewalled.client, handle.workflowId)) durableOnly.push(event);
      const withoutTime = ({ at: _at, ...event }: RunEvent) => event;
      expect(seen.filter((event): event is RunEvent => !isModelStreamEvent(event)).map(withoutTime)).toEqual(
        durableOnly.map(withoutTime),
      );
      expect(durableOnly.at(-1)?.type).toBe('run-end');
    } finally {
      await firewalled.close();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 60_000);
});
