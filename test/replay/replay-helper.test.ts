import { mkdtemp, copyFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { replayAgentHistories } from '../../src/testing';
import { installQuietRuntime } from '../helpers/quiet-runtime';

/**
 * `replayAgentHistories` from `agent-runner/testing`: what a user runs to check that their change keeps their
 * recorded runs replaying. One committed history, replayed through it against the agent's workflows (the plugin's
 * default) and against a changed workflow, which must fail with DeterminismViolationError.
 */

beforeAll(installQuietRuntime);

let directory: string;
beforeAll(async () => {
  // The helper replays a directory under each file's name as workflow id; the history was recorded under this one.
  directory = await mkdtemp(path.join(os.tmpdir(), 'replay-histories-'));
  await copyFile(
    path.join(__dirname, 'histories', 'agent-loop.json'),
    path.join(directory, 'recorded-agent-loop.json'),
  );
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

test('a committed history replays through the helper, with the plugin and the agent workflows it brings', async () => {
  const results = await replayAgentHistories({ historiesDir: directory });
  expect(results).toHaveLength(1);
  expect(results[0]?.workflowId).toBe('recorded-agent-loop');
  expect(results[0]?.error).toBeUndefined();
}, 240_000);

test("a user's workflows module that changed the workflow fails the same history with DeterminismViolationError", async () => {
  const results = await replayAgentHistories({
    historiesDir: directory,
    workflowsPath: require.resolve('./changed-workflow'),
  });
  expect(results).toHaveLength(1);
  expect(results[0]?.error).toBeInstanceOf(DeterminismViolationError);
}, 240_000);
