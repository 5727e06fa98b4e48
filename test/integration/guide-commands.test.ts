import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { shellBlocks } from '../helpers/doc-commands';
import { cleanEnv, runProcess, startCommand, stopChild } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';

/**
 * The guides' commands, run as printed through bash in the project's root, each terminal as its own process. The
 * environment names the suite's Temporal server and a task queue of this file's own, as a reader's shell would name
 * theirs; nothing in the commands is changed.
 */
const env = () => cleanEnv({ TEMPORAL_ADDRESS: testServerAddress(), AGENT_TASK_QUEUE: `guide-${randomUUID()}` });

describe('docs/guide/cli.md, a session offline', () => {
  test('the worker, the run that waits for approval, the approval from another terminal, the list', async () => {
    const [worker, run, approve, list, ...rest] = await shellBlocks('docs/guide/cli.md', 'A session');
    expect(rest).toEqual([]);
    const shell = env();
    const workerProcess = await startCommand('/bin/bash', ['-e', '-c', worker ?? ''], shell, /Worker polling/);
    try {
      expect(workerProcess.output()).toContain('OFFLINE (AGENT_OFFLINE=1): every answer is SCRIPTED');
      const runProcessOf = await startCommand('/bin/bash', ['-e', '-c', run ?? ''], shell, /needs approval/);
      const ended = new Promise<number | null>((resolve) => runProcessOf.child.on('close', resolve));
      const decided = await runProcess('/bin/bash', ['-e', '-c', approve ?? ''], { env: shell, timeoutMs: 60_000 });
      expect(decided.stderr).toBe('');
      expect(decided.code).toBe(0);
      expect(runProcessOf.output()).toContain('needs approval (call call-3-1)');
      const code = await ended;
      const output = runProcessOf.output();
      expect(output).toMatch(/✓ approved write_file \(call call-3-1\) \(by \S+, cli\)/);
      expect(output).toContain('Response: Summarised 3 files into summary.md.');
      expect(output).toContain('Completed: terminating_tool (finish was called) · 4 iterations');
      expect(code).toBe(0);
      // Visibility follows a run's end by a moment: the printed command, asked again until it shows the end.
      let listed = '';
      for (let attempt = 0; attempt < 10 && !/notes-summary\s+completed/.test(listed); attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
        listed = (await runProcess('/bin/bash', ['-e', '-c', list ?? ''], { env: shell, timeoutMs: 60_000 })).stdout;
      }
      expect(listed).toMatch(/notes-summary\s+completed\s+4\s/);
    } finally {
      await stopChild(workerProcess.child);
    }
  }, 240_000);
});

describe("the README's quick start", () => {
  test('npm run demo runs as printed; npm ci and npm test are the install and this suite', async () => {
    const [block, ...rest] = await shellBlocks('README.md', 'Quick start');
    expect(rest).toEqual([]);
    const commands = (block ?? '')
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => line !== '')
      .flatMap((line) => line.split('&&').map((command) => command.trim()));
    // A command added to the quick start must be run here too: this list is what the test knows.
    expect(commands).toEqual(['npm ci', 'npm run demo', 'npm test']);
    const demo = await runProcess('/bin/bash', ['-e', '-c', 'npm run demo'], {
      env: cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_WORKSPACE: await mkdtemp(path.join(os.tmpdir(), 'quick-start-')),
      }),
      timeoutMs: 150_000,
    });
    expect(demo.stderr).toBe('');
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain('uses the bundled scripted offline model');
    expect(demo.stdout).toContain('Response: Summarised 3 files into summary.md.');
  }, 180_000);
});
