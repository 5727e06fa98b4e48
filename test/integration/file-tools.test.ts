import { execFileSync } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentResult } from '../../src/shared/agent-result';
import { TestEnv } from '../helpers/test-env';

/**
 * The built-in file tools on hostile workspaces, through a real worker: the
 * model hears what went wrong and the run goes on, promptly. Before, a FIFO
 * blocked `read_file` until the run's timeout and a symlink loop failed the
 * whole listing.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

function toolResults(result: AgentResult): string[] {
  return result.messages.flatMap((message) => (message.role === 'tool' ? [message.content] : []));
}

test('read_file on a FIFO is refused at once; list_files skips a symlink loop and lists the rest; no server path is shown', async () => {
  execFileSync('mkfifo', [path.join(env.workspace, 'pipe')]);
  await writeFile(path.join(env.workspace, 'notes.md'), 'hello');
  await symlink('loop-b', path.join(env.workspace, 'loop-a'));
  await symlink('loop-a', path.join(env.workspace, 'loop-b'));
  const model = env.scenario([
    {
      toolCalls: [
        { name: 'read_file', arguments: { path: 'pipe' } },
        { name: 'list_files', arguments: {} },
        { name: 'read_file', arguments: { path: 'missing/nothing.txt' } },
      ],
    },
    { content: 'done' },
  ]);
  const started = Date.now();
  const result = await env.run({
    model,
    tools: ['read_file', 'list_files'],
    message: 'look around',
    timeout: '2 minutes',
  });

  expect(Date.now() - started).toBeLessThan(30_000);
  expect(result.response).toBe('done');
  const [fifo, listing, missing] = toolResults(result);
  expect(fifo).toMatch(/^Error: "pipe" is a FIFO \(named pipe\), not a regular file/);
  expect(listing).toContain('notes.md');
  expect(listing).toMatch(/loop-a.*skipped: symlink loop/);
  expect(missing).toMatch(/^Error: .*missing\/nothing\.txt/);
  for (const text of toolResults(result)) expect(text).not.toContain(env.workspace);
});
