import { runAgentRunner } from '../helpers/cli-process';
import { TEST_TOKEN, readEventStream } from '../helpers/api';
import { waitFor } from '../helpers/wait';
import { useApiWorld } from '../helpers/api-world';

/**
 * The `stop` signal from outside: `POST /runs/:run_id/stop` and `agent-runner stop`. A run whose `stopWhen`
 * contains `{ external: true }` ends at its next check; any other records the request and goes on.
 */

const world = useApiWorld();

const cli = (args: string[]) => runAgentRunner(world.env.taskQueue, args);

/** Twenty slow calculator turns, stoppable from outside: the stop always arrives while the run is still going. */
function stoppableInput(label: string) {
  const step = (index: number) => ({
    delayMs: 400,
    toolCalls: [{ name: 'calculator', arguments: { expression: `${index} + 1` }, id: `call_${label}_${index}` }],
  });
  const model = world.env.scenario(Array.from({ length: 20 }, (_, index) => step(index)));
  return {
    model,
    tools: ['calculator'],
    message: 'count slowly',
    stopWhen: { any: [{ external: true }, { maxIterations: 20 }] },
  };
}

const runPath = (runId: string) => `/runs/${encodeURIComponent(runId)}`;

async function startRun(input: Record<string, unknown>): Promise<string> {
  const answer = await world.api.post('/runs', { input });
  expect(answer.status).toBe(202);
  return answer.body.run_id as string;
}

async function resultOf(runId: string) {
  return waitFor(
    () => world.api.get(`${runPath(runId)}/result`),
    (answer) => answer.status === 200,
    60_000,
  );
}

describe('POST /runs/:run_id/stop', () => {
  test('a run whose stopWhen has external() ends at its next check; a second stop is a conflict', async () => {
    const runId = await startRun(stoppableInput('http'));
    await waitFor(
      () => world.api.get(runPath(runId)),
      (answer) => (answer.body.state?.iteration ?? 0) >= 1,
    );
    const stop = await world.api.post(`${runPath(runId)}/stop`, { reason: 'enough counting' });
    expect(stop.status).toBe(202);
    expect(stop.body).toEqual({ run_id: runId, stop_requested: true });

    const result = await resultOf(runId);
    expect(result.body).toMatchObject({
      outcome: 'completed',
      result: {
        terminationReason: {
          type: 'stop_condition',
          condition: 'external()',
          detail: 'an external stop was requested',
        },
      },
    });
    expect(result.body.result.iterations).toBeLessThan(20);
    const stream = await readEventStream(`${world.api.url}${runPath(runId)}/events`, {
      authorization: `Bearer ${TEST_TOKEN}`,
    });
    expect(stream.events.find((event) => event.event === 'stop-request')?.data).toMatchObject({
      reason: 'enough counting',
    });

    const again = await world.api.post(`${runPath(runId)}/stop`, {});
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'run_ended',
      message: `Run "${runId}" has already ended (completed).`,
    });
  }, 90_000);

  test('a run without external() records the request and goes on to its own end', async () => {
    const model = world.env.scenario([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'kept.txt', content: 'x' }, id: 'call_kept' }] },
      { toolCalls: [{ name: 'finish', arguments: { note: 'written' } }] },
    ]);
    const runId = await startRun({
      model,
      tools: ['write_file', 'finish'],
      message: 'write kept.txt',
      approval: { tools: ['write_file'] },
      terminating: { toolIds: ['finish'] },
    });
    await waitFor(
      () => world.api.get(runPath(runId)),
      (answer) => answer.body.state?.status === 'waiting_for_approval',
    );
    expect((await world.api.post(`${runPath(runId)}/stop`, { reason: 'ignored' })).status).toBe(202);
    const recorded = await waitFor(
      () => world.api.get(runPath(runId)),
      (answer) => answer.body.state?.lastEvent?.type === 'stop-request',
    );
    expect(recorded.body.state.status).toBe('waiting_for_approval');

    expect((await world.api.post(`${runPath(runId)}/approve`, { call_id: 'call-1-1' })).status).toBe(200);
    const result = await resultOf(runId);
    expect(result.body).toMatchObject({
      outcome: 'completed',
      result: { terminationReason: { type: 'terminating_tool' } },
    });
  }, 90_000);

  test('an unknown run is a 404, an unknown field a 400', async () => {
    expect((await world.api.post('/runs/no-such-run/stop', {})).status).toBe(404);
    const runId = await startRun(stoppableInput('bad-body'));
    const bad = await world.api.post(`${runPath(runId)}/stop`, { why: 'no' });
    expect(bad.status).toBe(400);
    expect((await world.api.post(`${runPath(runId)}/terminate`, {})).status).toBe(202);
  });
});

describe('agent-runner stop', () => {
  test('stops a run whose stopWhen has external(), and says a run that has ended takes no stop (exit 4)', async () => {
    const runId = await startRun(stoppableInput('cli'));
    const stopped = await cli(['stop', runId, '--reason', 'from the shell']);
    expect(stopped.stderr).toBe('');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`Asked run ${runId} to stop at its next check.`);
    expect(stopped.stdout).toContain(`agent-runner terminate ${runId}`);

    const result = await resultOf(runId);
    expect(result.body.result.terminationReason).toMatchObject({ type: 'stop_condition', condition: 'external()' });

    const late = await cli(['stop', runId, '--json']);
    expect(late.code).toBe(4);
    expect(late.stderr).toContain('has already ended');
  }, 120_000);
});
