import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newApiToken } from '../../src/config/principals';
import type { ApiScope } from '../../src/api/scopes';
import { type AgentResult } from '../../src/shared/agent-result';
import { TEST_TOKEN, type Json } from '../helpers/api';
import { runAgentRunner } from '../helpers/cli-process';
import { deleteFirstTemporalRun } from '../helpers/history-gone';
import { useApiWorld } from '../helpers/api-world';

/**
 * A fork over HTTP (`POST /runs/:run_id/fork`) and from the command line (`agent-runner fork`): it starts a run that
 * goes on from the source's conversation, and every bad request is refused with a clear answer before anything starts.
 */

const writer = newApiToken();
const reader = newApiToken();

function principal(name: string, token: { tokenSha256: string }, scopes: ApiScope[]) {
  return { name, tokenSha256: Buffer.from(token.tokenSha256, 'hex'), scopes: new Set(scopes) };
}

const world = useApiWorld({
  api: {
    auth: {
      token: TEST_TOKEN,
      principals: [
        principal('writer', writer, ['runs:write']),
        principal('reader-writer', reader, ['runs:read', 'runs:write']),
      ],
    },
  },
});
/** A run of three iterations over three Temporal runs: two calculator calls (call-1-1, call-2-1), then its answer. */
let sourceId: string;
beforeAll(async () => {
  const model = world.env.scenario([
    { toolCalls: [{ name: 'calculator', arguments: { expression: '1 + 1' } }] },
    { toolCalls: [{ name: 'calculator', arguments: { expression: '2 + 2' } }] },
    { content: 'two and four' },
  ]);
  const source = await world.env.start({ model, tools: ['calculator'], message: 'add', iterationsPerRun: 1 });
  await source.result();
  sourceId = source.workflowId;
});

const cli = (args: string[]) => runAgentRunner(world.env.taskQueue, args);

async function resultOf(workflowId: string): Promise<AgentResult> {
  return (await world.env.client.workflow.getHandle(workflowId).result()) as AgentResult;
}

describe('POST /runs/:run_id/fork', () => {
  test('starts the fork (202), which answers from the edited conversation', async () => {
    const model = world.env.scenario([{ content: 'three and four' }]);
    const answer = await world.api.post<Json>(
      `/runs/${sourceId}/fork`,
      { at_iteration: 2, tool_results: { 'call-1-1': '3' }, input: { model } },
      { authorization: `Bearer ${reader.token}` },
    );
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ forked_from: { run_id: sourceId, iteration: 2 } });
    expect(answer.headers.get('location')).toBe(answer.body.status_url);
    const result = await resultOf(answer.body.run_id);
    expect(result.response).toBe('three and four');
    expect(result.messages.map((message) => message.content)).toEqual(['add', null, '3', 'three and four']);
    expect(result.forkedFrom).toMatchObject({ runId: sourceId, iteration: 2 });
  });

  test('needs runs:read besides runs:write: it reads the source', async () => {
    const answer = await world.api.post<Json>(
      `/runs/${sourceId}/fork`,
      { at_iteration: 2 },
      { authorization: `Bearer ${writer.token}` },
    );
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('"runs:read"') });
  });

  test.each([
    ['an iteration before 1', { at_iteration: 0 }, 400, 'fork_iteration_invalid'],
    ['an iteration past the last the source began', { at_iteration: 4 }, 400, 'fork_iteration_invalid'],
    ['a call id that does not exist', { at_iteration: 2, tool_results: { nope: 'x' } }, 400, 'fork_call_unknown'],
    ['a call made at the fork point', { at_iteration: 2, tool_results: { 'call-2-1': 'x' } }, 400, 'fork_call_unknown'],
    ['an edit that breaks the input', { at_iteration: 2, input: { tools: 'calculator' } }, 400, 'fork_input_invalid'],
    ['a body without at_iteration', { message: 'hi' }, 400, 'invalid_body'],
  ])('%s', async (_case, body, status, code) => {
    const answer = await world.api.post<Json>(`/runs/${sourceId}/fork`, body);
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status, code });
    expect(answer.body.error.message.length).toBeGreaterThan(20);
  });

  test('an unknown source: 404 run_not_found', async () => {
    const answer = await world.api.post<Json>('/runs/no-such-run/fork', { at_iteration: 1 });
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status: 404, code: 'run_not_found' });
  });
});

describe('agent-runner fork', () => {
  test('forks with a replaced result, a message and instructions from files, and follows the fork to its end', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'fork-cli-'));
    await writeFile(path.join(directory, 'result.txt'), '5');
    await writeFile(path.join(directory, 'instructions.txt'), 'Answer in words.');
    const model = world.env.scenario([{ content: 'five and four, in words' }]);
    const finished = await cli([
      'fork',
      sourceId,
      '--at',
      '3',
      '--result',
      `call-1-1=${path.join(directory, 'result.txt')}`,
      '--instructions',
      path.join(directory, 'instructions.txt'),
      '--message',
      'say it in words',
      '--model',
      model,
    ]);
    expect(finished.stdout).toMatch(new RegExp(`Forked ${sourceId} at iteration 3: run agent-`));
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain('five and four, in words');
    const request = world.env.model.requests(model)[0]!;
    expect(request.messages.map((message) => message.content)).toEqual([
      'Answer in words.',
      'add',
      null,
      '5',
      null,
      '4',
      'say it in words',
    ]);
  });

  test.each([
    ['an iteration past the last', ['--at', '9'], 2, /began iterations 1 to 3/],
    ['an iteration before 1', ['--at', '0'], 2, /--at/],
    [
      'a call made after the fork point',
      ['--at', '2', '--result', 'call-2-1=/dev/null'],
      2,
      /at or after the fork point/,
    ],
    ['a result file that cannot be read', ['--at', '2', '--result', 'call-1-1=/no/such/file'], 2, /cannot read/],
  ])('%s', async (_case, args, code, message) => {
    const finished = await cli(['fork', sourceId, ...args]);
    expect({ code: finished.code, stderr: finished.stderr }).toEqual({ code, stderr: expect.stringMatching(message) });
  });

  test('an unknown run exits 4', async () => {
    const finished = await cli(['fork', 'no-such-run', '--at', '1']);
    expect({ code: finished.code, stderr: finished.stderr }).toEqual({
      code: 4,
      stderr: expect.stringContaining('No run "no-such-run" exists.'),
    });
  });
});

describe('a source whose history is gone', () => {
  test('is refused over HTTP (404 run_history_gone) and by the CLI (exit 4)', async () => {
    await deleteFirstTemporalRun(world.env.client, sourceId);
    const answer = await world.api.post<Json>(`/runs/${sourceId}/fork`, { at_iteration: 3 });
    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status: 404, code: 'run_history_gone' });
    const finished = await cli(['fork', sourceId, '--at', '3']);
    expect({ code: finished.code, stderr: finished.stderr }).toEqual({
      code: 4,
      stderr: expect.stringContaining("past the namespace's retention"),
    });
  }, 150_000);
});
