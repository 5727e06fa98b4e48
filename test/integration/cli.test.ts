import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RunSummary } from '../../src/client/run-control';
import type { AgentState } from '../../src/shared/agent-result';
import type { ApprovalDecision } from '../../src/shared/control';
import type { RunEvent } from '../../src/shared/run-events';
import { PROJECT_ROOT } from '../helpers/processes';
import { AGENT_RUNNER, agentRunnerEnv, runAgentRunner } from '../helpers/cli-process';
import { TestEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait';

/**
 * `agent-runner`, run as a real process through its launcher
 * (`node bin/agent-runner.js`, so signals reach it directly) against the
 * suite's Temporal server and a real worker with a scripted model: following
 * a run live, steering it from a second process, Ctrl-C, and the exit codes.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.create();
});
afterAll(async () => {
  await env.close();
});

/** A fresh shell's environment pointed at the suite's server and this file's worker. */
const cliEnv = (extra: NodeJS.ProcessEnv = {}) => agentRunnerEnv(env.taskQueue, extra);

/** Runs one command to its end; stdin is not a terminal. */
const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runAgentRunner(env.taskQueue, args, extraEnv);

/** A command left running, whose output the test reads as it comes (stdin is not a terminal). */
class RunningCli {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [AGENT_RUNNER, ...args], {
      cwd: PROJECT_ROOT,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('close', (code) => resolve(code)));
  }

  /** Resolves once stdout or stderr contains `text`; fails with the output so far if the process exits first. */
  async waitForOutput(text: string, timeoutMs = 60_000): Promise<void> {
    let exited = false;
    void this.exited.then(() => (exited = true));
    const deadline = Date.now() + timeoutMs;
    while (!this.stdout.includes(text) && !this.stderr.includes(text)) {
      if (exited || Date.now() > deadline) {
        throw new Error(
          `never printed ${JSON.stringify(text)}${exited ? ' (it exited)' : ''}.\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  interrupt(): void {
    this.child.kill('SIGINT');
  }

  /** Its exit code, with the output attached to a failing comparison. */
  async finished(): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const code = await this.exited;
    return { code, stdout: this.stdout, stderr: this.stderr };
  }
}

const newId = (label: string) => `cli-${label}-${randomUUID().slice(0, 8)}`;

/** A scenario whose first answer asks to write `file` (needs approval), then answers `finalText`. */
function gatedWrite(file: string, callId: string, finalText: string): string {
  return env.scenario([
    { toolCalls: [{ name: 'write_file', arguments: { path: file, content: 'written by the model' }, id: callId }] },
    { content: finalText },
  ]);
}

async function stateOf(workflowId: string): Promise<AgentState> {
  const finished = await cli(['status', workflowId, '--json']);
  if (finished.code !== 0) throw new Error(`status exited ${finished.code}: ${finished.stderr}`);
  return JSON.parse(finished.stdout) as AgentState;
}

describe('agent-runner run', () => {
  test('follows a run live; the approval it waits for is given from a second process, which prints the decision', async () => {
    const workflowId = newId('approve');
    const model = gatedWrite('cli-approved.txt', 'call_cli_write', 'The file is written.');
    const run = new RunningCli([
      'run',
      'Write',
      'the',
      'file',
      '--model',
      model,
      '--tools',
      'write_file',
      '--approve',
      'write_file',
      '--id',
      workflowId,
    ]);

    // The deny command is the request's last line; the approve command comes before it.
    await run.waitForOutput(`agent-runner deny ${workflowId} call-1-1 --reason`);
    expect(run.stdout).toContain(`Started run ${workflowId}`);
    expect(run.stdout).toContain(`agent-runner approve ${workflowId} call-1-1\n`);

    const approved = await cli(['approve', workflowId, 'call-1-1', '--as', 'reviewer']);
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toContain(`Approved write_file (call call-1-1) in run ${workflowId}.`);
    expect(approved.stdout).toContain('  by: reviewer (cli)');

    const finished = await run.finished();
    expect(finished).toMatchObject({ code: 0, stderr: '' });
    const output = finished.stdout;
    expect(output).toContain('[iteration 1]');
    expect(output).toContain(
      '? write_file {"path":"cli-approved.txt","content":"written by the model"} needs approval (call call-1-1)',
    );
    expect(output).toContain('✓ approved write_file (call call-1-1) (by reviewer, cli)');
    expect(output).toContain('→ write_file {"path":"cli-approved.txt","content":"written by the model"}');
    expect(output).toMatch(/← write_file \(\d+ ms\): Wrote \d+ bytes to cli-approved\.txt/);
    expect(output).toContain('Response: The file is written.');
    expect(output).toMatch(/Completed: complete \(the model answered\) · 2 iterations · \d+ tokens/);
    // Request, decision, call, result, response: in the order they happened.
    const order = ['needs approval', '✓ approved', '→ write_file', '← write_file', 'Response:'].map((text) =>
      output.indexOf(text),
    );
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(await readFile(path.join(env.workspace, 'cli-approved.txt'), 'utf8')).toBe('written by the model');
  }, 120_000);

  test('--json prints every event as one NDJSON line in seq order, then the outcome; notices go to stderr', async () => {
    const model = env.scenario([
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2^10' }, id: 'call_calc' }] },
      { content: 'Two to the tenth is 1024.' },
    ]);
    const finished = await cli(['run', 'What is 2^10?', '--model', model, '--tools', 'calculator', '--json']);
    expect(finished.code).toBe(0);
    expect(finished.stderr).toContain('Started run ');

    const lines = finished.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const events = lines.slice(0, -1) as RunEvent[];
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events[0]?.type).toBe('run-start');
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'completed' });
    expect(events.find((event) => event.type === 'tool-call-end')).toMatchObject({
      toolName: 'calculator',
      output: '1024',
      isError: false,
    });
    expect(lines.at(-1)).toMatchObject({
      outcome: { kind: 'completed', result: { response: 'Two to the tenth is 1024.', iterations: 2 } },
    });
  }, 90_000);

  test("prints the model's text as it is generated, once: the recorded answer is not printed again", async () => {
    const text = 'Streaming text reaches the terminal token by token, while the model is still writing it.';
    const model = env.scenario([{ content: text, tokenDelayMs: 60 }]);
    const run = new RunningCli(['run', 'Tell me', '--model', model, '--tools', 'calculator']);
    // Part of the answer is on the terminal before the model has finished writing it.
    await run.waitForOutput('  model: Streaming text');
    const sentWhenShown = env.model.sentChunks(model).length;
    expect(run.stdout).not.toContain(text);

    const finished = await run.finished();
    expect(finished).toMatchObject({ code: 0, stderr: '' });
    expect(sentWhenShown).toBeLessThan(text.split(' ').length);
    expect(finished.stdout).toContain(`  model: ${text}\n`);
    expect(finished.stdout.split('  model: ')).toHaveLength(2);
    expect(finished.stdout).toContain(`Response: ${text}`);
  }, 90_000);

  test('a run that fails (the model never calls the terminating tool) exits 1 and says why', async () => {
    const model = env.scenario([{ content: 'I think I am done.' }, { content: 'Really done.' }]);
    const finished = await cli([
      'run',
      'Do the task',
      '--model',
      model,
      '--tools',
      'calculator',
      '--terminate-on',
      'finish',
    ]);
    expect(finished.code).toBe(1);
    expect(finished.stdout).toContain('nudge: the model answered without calling a terminating tool');
    expect(finished.stdout).toMatch(
      /Failed \(MaxConsecutiveNudgesExceeded\): Max consecutive nudges exceeded · 2 iterations/,
    );
  }, 90_000);

  test('Ctrl-C without a terminal terminates the run gracefully, follows it to its end, and exits 3', async () => {
    const workflowId = newId('sigint');
    const model = gatedWrite('cli-never.txt', 'call_never', 'unused');
    const run = new RunningCli([
      'run',
      'Write it',
      '--model',
      model,
      '--tools',
      'write_file',
      '--approve',
      'write_file',
      '--id',
      workflowId,
    ]);
    await run.waitForOutput('needs approval (call call-1-1)');

    run.interrupt();
    const finished = await run.finished();
    expect(finished.code).toBe(3);
    expect(finished.stdout).toContain(`Ctrl-C: asking run ${workflowId} to terminate gracefully`);
    expect(finished.stdout).toContain('terminate requested: interrupted from agent-runner (Ctrl-C)');
    expect(finished.stdout).toContain('approval of write_file (call call-1-1) abandoned');
    expect(finished.stdout).toContain('Terminated: interrupted from agent-runner (Ctrl-C)');
    expect(await stateOf(workflowId)).toMatchObject({
      status: 'terminated',
      terminationReason: { type: 'external', via: 'signal' },
    });
    await expect(readFile(path.join(env.workspace, 'cli-never.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  }, 90_000);

  test('on a terminal (a pty from `script`), Ctrl-C asks first: "n" keeps following, "y" terminates gracefully (exit 3)', async () => {
    const workflowId = newId('tty');
    const model = gatedWrite('cli-tty.txt', 'call_tty', 'unused');
    // `exec`: no shell stays between the pty and the tool, to take a Ctrl-C of its own and exit 130 after it.
    const command = [
      'exec',
      process.execPath,
      AGENT_RUNNER,
      'run',
      'Write',
      '--model',
      model,
      '--tools',
      'write_file',
      '--approve',
      'write_file',
      '--id',
      workflowId,
    ].join(' ');
    // `script` runs the command on a pseudo-terminal: its stdin is a TTY, and ^C typed into it is a real SIGINT.
    const terminal = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: PROJECT_ROOT,
      env: cliEnv({ TERM: 'dumb' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    terminal.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    terminal.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => terminal.once('close', (code) => resolve(code)));
    const shows = (text: string, from = 0) =>
      waitFor(
        async () => screen.slice(from),
        (seen) => seen.includes(text),
        60_000,
      );
    try {
      await shows('needs approval (call call-1-1)');
      expect(screen).toContain('Ctrl-C here asks whether to terminate it');

      const beforeNo = screen.length;
      terminal.stdin.write('\x03');
      await shows(`Terminate run ${workflowId} gracefully? [y/N]`, beforeNo);
      terminal.stdin.write('n\r');
      await shows('Still following; the run goes on.', beforeNo);
      expect(await stateOf(workflowId)).toMatchObject({ status: 'waiting_for_approval' });

      const beforeYes = screen.length;
      terminal.stdin.write('\x03');
      await shows(`Terminate run ${workflowId} gracefully? [y/N]`, beforeYes);
      terminal.stdin.write('y\r');
      expect({ code: await exited, screen }).toMatchObject({ code: 3 });
      expect(await stateOf(workflowId)).toMatchObject({
        status: 'terminated',
        terminationReason: { type: 'external', via: 'signal' },
      });
    } finally {
      if (terminal.exitCode === null) terminal.kill('SIGKILL');
    }
  }, 120_000);

  test('--input supplies the whole input and the flags override its fields', async () => {
    const model = env.scenario([{ content: 'Read you.' }]);
    const directory = await mkdtemp(path.join(os.tmpdir(), 'cli-input-'));
    const file = path.join(directory, 'input.json');
    await writeFile(
      file,
      JSON.stringify({ tools: ['calculator'], message: 'Hello from the file', model: 'overridden', maxInvocations: 3 }),
    );
    const finished = await cli(['run', '--input', file, '--model', model]);
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain('Response: Read you.');
    const request = env.model.requests(model)[0];
    expect(request?.messages.at(-1)).toMatchObject({ role: 'user', content: 'Hello from the file' });
    expect(request?.tools?.map((tool) => tool.function.name)).toEqual(['calculator']);
  }, 90_000);
});

describe('steering a run from other processes', () => {
  test('start, then watch it; a rejected decision exits 4; deny with a reason; decisions on an ended run exit 4', async () => {
    const model = gatedWrite('cli-denied.txt', 'call_to_deny', 'Understood, I will not write it.');
    const started = await cli([
      'start',
      'Write it',
      '--model',
      model,
      '--tools',
      'write_file',
      '--approve',
      'write_file',
      '--json',
    ]);
    expect(started.code).toBe(0);
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string; runId: string };

    const watch = new RunningCli(['watch', workflowId]);
    await watch.waitForOutput(`agent-runner deny ${workflowId} call-1-1`);

    const unknownCall = await cli(['approve', workflowId, 'call_unknown']);
    expect(unknownCall.code).toBe(4);
    expect(unknownCall.stderr).toContain(
      'the run refused the decision: No call "call_unknown" is waiting for approval',
    );

    const denied = await cli(['deny', workflowId, 'call-1-1', '--reason', 'not in this sprint', '--json']);
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout) as ApprovalDecision).toMatchObject({
      callId: 'call-1-1',
      toolName: 'write_file',
      decision: 'deny',
      reason: 'not in this sprint',
      via: 'update',
      // Without --as: the operating system's user.
      by: { name: os.userInfo().username, via: 'cli' },
    });

    const watched = await watch.finished();
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain(
      `✗ denied write_file (call call-1-1): not in this sprint (by ${os.userInfo().username}, cli)`,
    );
    expect(watched.stdout).toContain('Response: Understood, I will not write it.');
    expect(env.model.requests(model)[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'Denied: not in this sprint',
    });

    const late = await cli(['approve', workflowId, 'call-1-1']);
    expect(late.code).toBe(4);
    expect(late.stderr).toContain(`Run "${workflowId}" has already ended (completed)`);
  }, 120_000);

  test('status and list show a waiting run with its commands; terminate --wait ends it and exits 3', async () => {
    const model = gatedWrite('cli-status.txt', 'call_status', 'unused');
    const started = await cli([
      'start',
      'Write it',
      '--model',
      model,
      '--tools',
      'write_file',
      '--approve',
      'write_file',
    ]);
    expect(started.code).toBe(0);
    const workflowId = /Started run (\S+)/.exec(started.stdout)?.[1] ?? '';
    expect(started.stdout).toContain(`agent-runner watch ${workflowId}`);

    await waitFor(
      () => stateOf(workflowId),
      (state) => state.status === 'waiting_for_approval',
      60_000,
    );
    const status = await cli(['status', workflowId]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Run ${workflowId}: waiting_for_approval`);
    expect(status.stdout).toContain('pending approvals (1):');
    expect(status.stdout).toContain(
      'write_file {"path":"cli-status.txt","content":"written by the model"} (call call-1-1',
    );
    expect(status.stdout).toContain(`agent-runner approve ${workflowId} call-1-1`);

    const listed = await waitFor(
      async () =>
        JSON.parse(
          (await cli(['list', '--status', 'waiting_for_approval', '--json', '--limit', '100'])).stdout,
        ) as RunSummary[],
      (runs) => runs.some((run) => run.workflowId === workflowId),
      60_000,
    );
    expect(listed.find((run) => run.workflowId === workflowId)).toMatchObject({
      status: 'waiting_for_approval',
      pendingApprovals: 1,
      iterations: 1,
    });
    const table = await cli(['list', '--status', 'waiting_for_approval', '--limit', '100']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+STATUS\s+ITERATIONS\s+TOKENS\s+COST\s+PENDING\s+STARTED/);
    expect(table.stdout).toMatch(new RegExp(`${workflowId}\\s+waiting_for_approval\\s+1\\s+\\d+\\s+-\\s+1\\s+\\d{4}-`));

    const terminated = await cli(['terminate', workflowId, '--reason', 'operator stop', '--wait']);
    expect(terminated.code).toBe(3);
    expect(terminated.stdout).toContain('terminate requested: operator stop');
    expect(terminated.stdout).toContain('Terminated: operator stop');

    const after = await cli(['status', workflowId]);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(`Run ${workflowId}: terminated`);
    expect(after.stdout).toContain('ended:     external (stopped by signal: operator stop)');
    const again = await cli(['terminate', workflowId]);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('has already ended (completed)');
  }, 180_000);

  test('Ctrl-C stops watching (exit 130) and leaves the run as it was', async () => {
    const workflowId = newId('watch');
    const model = gatedWrite('cli-watched.txt', 'call_watched', 'unused');
    expect(
      (
        await cli([
          'start',
          'Write it',
          '--model',
          model,
          '--tools',
          'write_file',
          '--approve',
          'write_file',
          '--id',
          workflowId,
        ])
      ).code,
    ).toBe(0);
    const watch = new RunningCli(['watch', workflowId]);
    await watch.waitForOutput('needs approval (call call-1-1)');

    watch.interrupt();
    const watched = await watch.finished();
    expect(watched.code).toBe(130);
    expect(watched.stdout).toContain(
      `Stopped following run ${workflowId}; it goes on. Watch it again: agent-runner watch ${workflowId}`,
    );
    expect(await stateOf(workflowId)).toMatchObject({ status: 'waiting_for_approval' });
    expect((await cli(['terminate', workflowId])).code).toBe(0);
  }, 120_000);

  test('the question ask_question puts is shown with the command that answers it; answer resumes the run', async () => {
    const workflowId = newId('answer');
    const model = env.scenario([
      { toolCalls: [{ name: 'ask_question', arguments: { question: 'Which year?' }, id: 'call_ask' }] },
      { toolCalls: [{ name: 'task_completion', arguments: { result: 'Report for the year given.' } }] },
    ]);
    const run = new RunningCli([
      'run',
      'Make the report',
      '--model',
      model,
      '--tools',
      'ask_question,task_completion',
      '--id',
      workflowId,
    ]);
    await run.waitForOutput(`agent-runner answer ${workflowId} "..."`);
    expect(run.stdout).toContain('the model asks: Which year?');

    const answered = await cli(['answer', workflowId, '2025']);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain(`Sent to run ${workflowId}.`);
    const finished = await run.finished();
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain('Response: Report for the year given.');
    expect(env.model.requests(model)[1]?.messages.at(-1)).toEqual({ role: 'user', content: '2025' });

    const late = await cli(['answer', workflowId, 'too late']);
    expect(late.code).toBe(4);
    expect(late.stderr).toContain('has already ended');
    expect((await cli(['answer', workflowId])).code).toBe(2);
  }, 120_000);
});

describe('a run that continued as new', () => {
  test('watch from the start says how many events are no longer kept, then prints the rest and the outcome', async () => {
    // 52 iterations of four events each pass the 200 events a hand-over carries.
    const steps = Array.from({ length: 53 }, (_, index) => ({
      toolCalls: [{ name: 'calculator', arguments: { expression: `${index} + 1` }, id: `call_${index}` }],
    }));
    const model = env.scenario([...steps, { content: 'counted' }]);
    const handle = await env.start({
      model,
      tools: ['calculator'],
      message: 'count',
      iterationsPerRun: 52,
      maxInvocations: 60,
    });
    await handle.result();

    const watched = await cli(['watch', handle.workflowId]);
    expect(watched).toMatchObject({ code: 0, stderr: '' });
    expect(watched.stdout).toMatch(
      /^\(\d+ earlier events are no longer kept: the run continued as new since; following on from the oldest kept\)$/m,
    );
    expect(watched.stdout).toContain('Response: counted');
  }, 120_000);
});

describe('a run Temporal terminated', () => {
  test('status prints it as terminated from outside, read from its history, with nothing on stderr', async () => {
    const handle = await env.start({
      model: gatedWrite('cli-hard.txt', 'call_hard', 'unused'),
      tools: ['write_file'],
      approval: { tools: ['write_file'] },
      message: 'Write it',
    });
    await waitFor(
      () => stateOf(handle.workflowId),
      (state) => state.status === 'waiting_for_approval',
      60_000,
    );
    await handle.terminate('pulled by an operator');
    const status = await cli(['status', handle.workflowId]);
    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(status.stdout).toContain(`Run ${handle.workflowId}: terminated`);
    expect(status.stdout).toContain('ended:     external (stopped by temporal: pulled by an operator)');
    expect(status.stdout).not.toContain('pending approvals');
  }, 120_000);
});

describe('errors and exit codes', () => {
  test('an unknown run exits 4 for every command that names one', async () => {
    const missing = newId('missing');
    const results = await Promise.all([
      cli(['status', missing]),
      cli(['watch', missing]),
      cli(['approve', missing, 'call_1']),
      cli(['terminate', missing]),
    ]);
    for (const finished of results) {
      expect({ code: finished.code, stderr: finished.stderr.trim() }).toEqual({
        code: 4,
        stderr: `error: No run "${missing}" exists.`,
      });
    }
  }, 90_000);

  test('usage errors and invalid input exit 2 with each problem, before anything starts', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'cli-bad-input-'));
    const badInput = path.join(directory, 'input.json');
    await writeFile(badInput, JSON.stringify({ tools: ['calculator'], message: '', terminating: { toolIds: [] } }));
    const [zero, unknownOption, approveUnknown, fromFile, args, status, noCommand, badName, token] = await Promise.all([
      cli(['run', 'hi', '--max-invocations', '0']),
      cli(['run', 'hi', '--bogus']),
      cli(['start', 'hi', '--tools', 'calculator', '--approve', 'write_file']),
      cli(['run', '--input', badInput]),
      cli(['approve', 'some-run', 'call_1', '--args', '[1, 2]']),
      cli(['list', '--status', 'sleeping']),
      cli([]),
      cli(['deny', 'some-run', 'call_1', '--as', 'eve\nroot']),
      cli(['api-token', '--name', 'ops-bot', '--scopes', 'runs:read,approvals:decide', '--json']),
    ]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain(
      "option '--max-invocations <n>' argument '0' is invalid. expected a whole number of at least 1",
    );
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("error: unknown option '--bogus'");
    expect(approveUnknown.code).toBe(2);
    expect(approveUnknown.stderr).toContain(
      `approval.tools[0]: "write_file" is not one of this run's tools (calculator)`,
    );
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toContain("error: the run's input is invalid:");
    expect(fromFile.stderr).toContain('  - message:');
    expect(fromFile.stderr).toContain('  - terminating.toolIds: give at least one tool id');
    expect(args.code).toBe(2);
    expect(args.stderr).toContain('expected a JSON object');
    expect(status.code).toBe(2);
    expect(status.stderr).toContain(
      "argument 'sleeping' is invalid. Allowed choices are running, waiting_for_approval",
    );
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toContain('Usage: agent-runner');
    // A decider's name is untrusted text for logs and events: plain characters only.
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain("option '--as <name>' argument 'eve\nroot' is invalid. letters, digits");
    // api-token needs no server: a fresh token and the principals-file entry with its SHA-256.
    expect(token.code).toBe(0);
    const printed = JSON.parse(token.stdout) as {
      token: string;
      entry: { name: string; tokenSha256: string; scopes: string[] };
    };
    expect(printed.entry).toEqual({
      name: 'ops-bot',
      tokenSha256: createHash('sha256').update(printed.token).digest('hex'),
      scopes: ['runs:read', 'approvals:decide'],
    });
  }, 90_000);

  test('a tool the worker does not know fails the started run as invalid input: exit 2 with the problem', async () => {
    const finished = await cli([
      'run',
      'hi',
      '--model',
      env.scenario([{ content: 'unused' }]),
      '--tools',
      'no_such_tool',
    ]);
    expect(finished.code).toBe(2);
    expect(finished.stdout).toContain('Failed (InvalidAgentInput): the input was refused:');
    expect(finished.stdout).toContain('- tools: unknown tool "no_such_tool"; the worker registers:');
  }, 90_000);

  test('--help documents the commands and the exit codes, and exits 0', async () => {
    const [main, run] = await Promise.all([cli(['--help']), cli(['run', '--help'])]);
    expect(main.code).toBe(0);
    for (const command of ['run', 'start', 'status', 'watch', 'approve', 'deny', 'terminate', 'list'])
      expect(main.stdout).toContain(`  ${command} `);
    expect(main.stdout).toContain('Exit codes:');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--terminate-on <tools>');
    expect(run.stdout).toContain('Terminate run <id> gracefully? [y/N]');
    expect(run.stdout).toContain('3    the run was terminated');
  }, 60_000);

  test('a Temporal server that is not there exits 5 with a message and no stack', async () => {
    const finished = await cli(['status', 'any-run'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(finished.code).toBe(5);
    expect(finished.stderr).toContain('error: Cannot reach the Temporal server at 127.0.0.1:1');
    expect(finished.stderr).not.toMatch(/^\s+at /m);
  }, 60_000);
});
