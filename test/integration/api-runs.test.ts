import { Client, Connection } from '@temporalio/client';
import { buildApiServer } from '../../src/api/server';
import { testServerAddress } from '../helpers/test-env';
import { TEST_TOKEN, readEventStream, type SseEvent } from '../helpers/api';
import { waitFor } from '../helpers/wait';
import { useApiWorld } from '../helpers/api-world';

const world = useApiWorld();

const auth = { authorization: `Bearer ${TEST_TOKEN}` };

/** Starts a run through the API; answers its id. */
async function startRun(input: Record<string, unknown>, runId?: string): Promise<string> {
  const answer = await world.api.post('/runs', { input, ...(runId === undefined ? {} : { run_id: runId }) });
  expect(answer.status).toBe(202);
  expect(answer.headers.get('location')).toBe(`/runs/${encodeURIComponent(answer.body.run_id)}`);
  return answer.body.run_id as string;
}

/** A run whose first answer asks to write `file` (which needs approval), then finishes. */
function approvalInput(file: string) {
  const model = world.env.scenario([
    { toolCalls: [{ name: 'write_file', arguments: { path: file, content: 'x' }, id: `call_${file}` }] },
    { toolCalls: [{ name: 'finish', arguments: { note: `finished ${file}` } }] },
  ]);
  return {
    model,
    input: {
      model,
      tools: ['write_file', 'finish'],
      message: `write ${file}`,
      approval: { tools: ['write_file'] },
      terminating: { toolIds: ['finish'] },
    },
  };
}

describe('runs over HTTP', () => {
  test('POST /runs answers 202 at once; its events arrive as Server-Sent Events in order, then an end event with the outcome', async () => {
    const model = world.env.scenario([
      {
        content: 'Computing.',
        toolCalls: [{ name: 'calculator', arguments: { expression: '32 * 32' }, id: 'call_pow' }],
      },
      { toolCalls: [{ name: 'finish', arguments: { note: '1024' } }] },
    ]);
    const runId = await startRun({
      model,
      tools: ['calculator', 'finish'],
      message: 'what is 32 * 32?',
      terminating: { toolIds: ['finish'] },
    });

    const stream = await readEventStream(`${world.api.url}/runs/${encodeURIComponent(runId)}/events`, auth);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    // The log's entries (the model's deltas, which have no id, may come between them).
    const runEvents = stream.events.filter((event) => event.id !== undefined);
    expect(runEvents.map((event) => Number(event.id))).toEqual(runEvents.map((_, index) => index + 1));
    expect(runEvents.map((event) => event.data.seq)).toEqual(runEvents.map((event) => Number(event.id)));
    const types = runEvents.map((event) => event.event);
    expect(types[0]).toBe('run-start');
    expect(types.at(-1)).toBe('run-end');
    expect(types.indexOf('tool-call-start')).toBeLessThan(types.indexOf('tool-call-end'));
    expect(runEvents.find((event) => event.event === 'tool-call-start')?.data).toMatchObject({
      toolName: 'calculator',
      arguments: { expression: '32 * 32' },
    });
    expect(runEvents.find((event) => event.event === 'tool-call-end')?.data).toMatchObject({
      toolName: 'calculator',
      output: '1024',
      isError: false,
    });
    expect(runEvents.find((event) => event.event === 'model-response')?.data).toMatchObject({ content: 'Computing.' });
    expect(stream.events.at(-1)).toMatchObject({
      event: 'end',
      data: { run_id: runId, outcome: 'completed', result: { response: '1024' } },
    });

    // Resuming with Last-Event-ID sends only what came after it (the later of it and ?after=).
    const resumed = await readEventStream(`${world.api.url}/runs/${encodeURIComponent(runId)}/events?after=1`, {
      ...auth,
      'last-event-id': '3',
    });
    expect(resumed.events[0]?.id).toBe('4');
    expect(resumed.events.filter((event) => event.id !== undefined)).toHaveLength(runEvents.length - 3);
    // A follower that has read everything of an ended run gets 204, which tells an EventSource to stop reconnecting.
    const done = await fetch(`${world.api.url}/runs/${encodeURIComponent(runId)}/events`, {
      headers: { ...auth, 'last-event-id': String(runEvents.length) },
    });
    expect(done.status).toBe(204);

    const result = await world.api.get(`/runs/${encodeURIComponent(runId)}/result`);
    expect(result.body).toMatchObject({
      run_id: runId,
      outcome: 'completed',
      result: { response: '1024', terminationReason: { type: 'terminating_tool', toolName: 'finish' } },
    });
    const state = await world.api.get(`/runs/${encodeURIComponent(runId)}`);
    expect(state.body).toMatchObject({
      run_id: runId,
      temporal_status: 'COMPLETED',
      state: { status: 'completed', iteration: 2 },
    });
  });

  test('a pending call shows in the stream; approving it over HTTP lets the run finish', async () => {
    const { input } = approvalInput('approved.txt');
    const runId = await startRun(input);
    const events: SseEvent[] = [];
    const streaming = readEventStream(`${world.api.url}/runs/${encodeURIComponent(runId)}/events`, auth, (event) => {
      events.push(event);
      return event.event === 'end';
    });
    await waitFor(
      async () => events,
      (seen) => seen.some((event) => event.event === 'approval-request'),
    );
    const request = events.find((event) => event.event === 'approval-request');
    expect(request?.data).toMatchObject({
      callId: 'call-1-1',
      toolName: 'write_file',
      arguments: { path: 'approved.txt', content: 'x' },
    });

    const state = await world.api.get(`/runs/${encodeURIComponent(runId)}`);
    expect(state.body.state).toMatchObject({
      status: 'waiting_for_approval',
      pendingApprovals: [{ callId: 'call-1-1' }],
    });
    const unknown = await world.api.post(`/runs/${encodeURIComponent(runId)}/approve`, { call_id: 'call_nope' });
    expect(unknown.status).toBe(409);
    expect(unknown.body.error.code).toBe('decision_rejected');

    const approved = await world.api.post(`/runs/${encodeURIComponent(runId)}/approve`, {
      call_id: 'call-1-1',
      arguments: { path: 'approved.txt', content: 'edited' },
    });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      callId: 'call-1-1',
      decision: 'approve',
      via: 'update',
      arguments: { content: 'edited' },
    });
    const stream = await streaming;
    expect(stream.events.at(-1)).toMatchObject({
      event: 'end',
      data: { outcome: 'completed', result: { response: 'finished approved.txt' } },
    });
    const order = stream.events.map((event) => event.event);
    expect(order.indexOf('approval-request')).toBeLessThan(order.indexOf('approval-decision'));
    expect(order.indexOf('approval-decision')).toBeLessThan(order.lastIndexOf('tool-call-end'));
  });

  test('deny tells the model; terminate stops a waiting run gracefully; a second terminate is a conflict', async () => {
    const denied = approvalInput('denied.txt');
    const deniedId = await startRun(denied.input);
    await waitFor(
      () => world.api.get(`/runs/${encodeURIComponent(deniedId)}`),
      (answer) => answer.body.state?.status === 'waiting_for_approval',
    );
    const decision = await world.api.post(`/runs/${encodeURIComponent(deniedId)}/deny`, {
      call_id: 'call-1-1',
      reason: 'not today',
    });
    expect(decision.body).toMatchObject({ decision: 'deny', reason: 'not today' });
    await waitFor(
      () => world.api.get(`/runs/${encodeURIComponent(deniedId)}/result`),
      (answer) => answer.status === 200,
    );
    expect(world.env.model.requests(denied.model)[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'Denied: not today',
    });
    const late = await world.api.post(`/runs/${encodeURIComponent(deniedId)}/approve`, { call_id: 'call-1-1' });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'run_ended', message: `Run "${deniedId}" has already ended.` });

    const stopped = approvalInput('stopped.txt');
    const stoppedId = await startRun(stopped.input);
    await waitFor(
      () => world.api.get(`/runs/${encodeURIComponent(stoppedId)}`),
      (answer) => answer.body.state?.status === 'waiting_for_approval',
    );
    const terminate = await world.api.post(`/runs/${encodeURIComponent(stoppedId)}/terminate`, {
      reason: 'operator said so',
    });
    expect(terminate.status).toBe(202);
    const result = await waitFor(
      () => world.api.get(`/runs/${encodeURIComponent(stoppedId)}/result`),
      (answer) => answer.status === 200,
    );
    expect(result.body).toMatchObject({
      outcome: 'terminated',
      reason: 'operator said so',
      result: { terminationReason: { type: 'external', via: 'signal' } },
    });
    const again = await world.api.post(`/runs/${encodeURIComponent(stoppedId)}/terminate`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('run_ended');
    // It says how the run ended, as its outcome does: terminated, though Temporal saw it complete.
    expect(again.body.error.message).toBe(`Run "${stoppedId}" has already ended (terminated).`);
  });

  test('a question from ask_question is answered over HTTP, and the run resumes with the answer', async () => {
    const model = world.env.scenario([
      { toolCalls: [{ name: 'ask_question', arguments: { question: 'Which year?' }, id: 'call_ask' }] },
      { toolCalls: [{ name: 'task_completion', arguments: { result: 'done' } }] },
    ]);
    const runId = await startRun({ model, tools: ['ask_question', 'task_completion'], message: 'report' });
    const waiting = await waitFor(
      () => world.api.get(`/runs/${runId}`),
      (answer) => answer.body.state?.status === 'waiting_for_input',
    );
    expect(waiting.body.state.question).toMatchObject({ callId: 'call-1-1', question: 'Which year?' });
    expect((await world.api.post(`/runs/${runId}/messages`, { content: '  ' })).status).toBe(400);
    const sent = await world.api.post(`/runs/${runId}/messages`, { content: '2025' });
    expect(sent.status).toBe(202);
    const result = await waitFor(
      () => world.api.get(`/runs/${runId}/result`),
      (answer) => answer.status === 200,
    );
    expect(result.body).toMatchObject({ outcome: 'completed', result: { response: 'done' } });
    expect(world.env.model.requests(model)[1]?.messages.at(-1)).toEqual({ role: 'user', content: '2025' });
    expect((await world.api.post(`/runs/${runId}/messages`, { content: 'late' })).body.error.code).toBe('run_ended');
  });

  test('GET /runs lists runs by their agent status', async () => {
    const model = world.env.scenario([{ content: 'listed' }]);
    const runId = await startRun({ model, tools: ['calculator'], message: 'hi' });
    const listed = await waitFor(
      () => world.api.get('/runs?status=completed&limit=200'),
      // The search attributes and the close reach visibility separately: wait for both.
      (answer) =>
        (answer.body.runs as { run_id: string; temporal_status: string }[]).some(
          (run) => run.run_id === runId && run.temporal_status === 'COMPLETED',
        ),
    );
    expect((listed.body.runs as { run_id: string }[]).find((run) => run.run_id === runId)).toMatchObject({
      temporal_status: 'COMPLETED',
      status: 'completed',
      iterations: 1,
    });
    expect((await world.api.get('/runs?limit=0')).status).toBe(400);
    expect((await world.api.get('/runs?status=sleeping')).body.error.details[0].field).toBe('status');
    // A query cannot close the agent-run filter's parenthesis and list other workflows.
    const escaping = await world.api.get(
      `/runs?query=${encodeURIComponent("AgentIterations > 0) OR (WorkflowType = 'conversationWorkflow'")}`,
    );
    expect(escaping.status).toBe(400);
    expect(escaping.body.error.code).toBe('invalid_query');
    const malformed = await world.api.get(`/runs?query=${encodeURIComponent('AgentIterations >>> 1')}`);
    expect(malformed.status).toBe(400);
  });

  test('unknown runs are 404; invalid input is 400 by field; a taken run_id is 409', async () => {
    expect((await world.api.get('/runs/no-such-run')).body.error.code).toBe('run_not_found');
    expect((await world.api.get('/runs/no-such-run/events')).status).toBe(404);
    expect((await world.api.post('/runs/no-such-run/approve', { call_id: 'x' })).status).toBe(404);
    expect((await world.api.post('/runs/no-such-run/terminate', {})).status).toBe(404);

    const invalid = await world.api.post('/runs', { input: { tools: 'calculator', message: 'hi', maxInvocations: 0 } });
    expect(invalid.status).toBe(400);
    expect((invalid.body.error.details as { field: string }[]).map((detail) => detail.field).sort()).toEqual([
      'input.maxInvocations',
      'input.tools',
    ]);

    const model = world.env.scenario([{ content: 'one' }]);
    const runId = `fixed-${Date.now()}`;
    await startRun({ model, tools: ['calculator'], message: 'hi' }, runId);
    await waitFor(
      () => world.api.get(`/runs/${runId}/result`),
      (answer) => answer.status === 200,
    );
    // Taken for good: also once its run has ended, the id does not start a second run.
    const taken = await world.api.post('/runs', {
      input: { model, tools: ['calculator'], message: 'hi' },
      run_id: runId,
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('run_exists');
    const squatting = await world.api.post('/runs', {
      input: { model, tools: ['calculator'], message: 'hi' },
      run_id: 'conversation:abc:turn-1',
    });
    expect(squatting.body.error.details).toEqual([
      { field: 'run_id', problem: expect.stringContaining('conversation') },
    ]);
  });
});

describe('server errors', () => {
  test('a Temporal that cannot be reached is a 503; an unexpected failure is a 500 naming the request, never a stack', async () => {
    // No retry interceptor, so the unreachable server answers at once instead of after the SDK's backoff.
    const unreachable = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', interceptors: [] }) });
    const closedConnection = await Connection.connect({ address: testServerAddress() });
    await closedConnection.close();
    const closed = new Client({ connection: closedConnection });
    for (const [client, status] of [
      [unreachable, 503],
      [closed, 500],
    ] as const) {
      const app = buildApiServer({
        client,
        taskQueue: world.env.taskQueue,
        auth: { disabled: true },
        defaults: { tools: ['calculator'] },
      });
      try {
        await app.listen({ host: '127.0.0.1', port: 0 });
        const { port } = app.server.address() as { port: number };
        const response = await fetch(`http://127.0.0.1:${port}/runs/some-run`);
        const text = await response.text();
        expect(response.status).toBe(status);
        const body = JSON.parse(text) as { error: { code: string; message: string } };
        expect(body.error.code).toBe(status === 503 ? 'temporal_unavailable' : 'internal_error');
        if (status === 500) expect(body.error.message).toMatch(/request id req-[0-9a-f]{8}/);
        expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/);
      } finally {
        await app.close();
      }
    }
  });
});
