import { ForkRefusedError } from '../../src/client/fork-refused-error';
import { forkRun } from '../../src/client/fork-run';
import { TestApi, type Json } from '../helpers/api';
import { runAgentRunner } from '../helpers/cli-process';
import { TestEnv } from '../helpers/test-env';

/**
 * A source run recorded by other workflow code (here the replay test's changed workflow, a timer before the loop, as
 * another build would record it) cannot be read by replaying it: the fork is refused, with what to do, before
 * anything starts, from the client, over HTTP and by the CLI.
 */

let env: TestEnv;
let api: TestApi;
let sourceId: string;
beforeAll(async () => {
  env = await TestEnv.create({ workflowsPath: require.resolve('../replay/changed-workflow') });
  api = await TestApi.start(env);
  const model = env.scenario([
    { toolCalls: [{ name: 'calculator', arguments: { expression: '1 + 1' } }] },
    { content: 'two' },
  ]);
  const source = await env.start({ model, tools: ['calculator'], message: 'add' });
  await source.result();
  sourceId = source.workflowId;
}, 120_000);
afterAll(async () => {
  await api.close();
  await env.close();
});

test('the client refuses it with ForkRefusedError("history-not-replayed")', async () => {
  const refused = await forkRun(env.client, sourceId, { atIteration: 2 }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ForkRefusedError);
  expect(refused).toMatchObject({
    refusal: 'history-not-replayed',
    message: expect.stringContaining('Fork it with the agent-runner version its worker ran'),
  });
}, 60_000);

test('HTTP answers 409 fork_source_not_replayable', async () => {
  const answer = await api.post<Json>(`/runs/${sourceId}/fork`, { at_iteration: 2 });
  expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
    status: 409,
    code: 'fork_source_not_replayable',
  });
  expect(answer.body.error.message).toContain(`Run "${sourceId}" was recorded by workflow code that differs`);
}, 60_000);

test('the CLI says what to do and exits 4', async () => {
  const finished = await runAgentRunner(env.taskQueue, ['fork', sourceId, '--at', '2']);
  expect({ code: finished.code, stderr: finished.stderr }).toEqual({
    code: 4,
    stderr: expect.stringContaining('Fork it with the agent-runner version its worker ran'),
  });
  expect(finished.stdout).not.toContain('Forked');
}, 120_000);
