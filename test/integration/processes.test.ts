import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import { spawn } from 'node:child_process';
import { stopProcess, waitForServer } from '../../src/dev-server/dev-server';
import { freePort } from '../../src/os/ports';
import { PROJECT_ROOT, cleanEnv, runProcess, runScript, stopChild, temporalCli } from '../helpers/processes';
import { testServerAddress } from '../helpers/test-env';
import { startWorkerProcess } from '../helpers/worker-process';

/** The environment a fresh shell would have, without anything from this test process's config. */
describe('npm run worker refuses bad configuration with a clear message', () => {
  test('no model configured', async () => {
    const finished = await runScript('src/processes/worker.ts', {
      env: cleanEnv({ TEMPORAL_ADDRESS: testServerAddress() }),
    });
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain('No model is configured: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL');
  });

  test('a malformed TEMPORAL_ADDRESS and OPENAI_BASE_URL, both named', async () => {
    const finished = await runScript('src/processes/worker.ts', {
      env: cleanEnv({ TEMPORAL_ADDRESS: 'http://localhost', OPENAI_BASE_URL: 'not a url' }),
    });
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain('TEMPORAL_ADDRESS="http://localhost": expected host:port');
    expect(finished.stderr).toContain('OPENAI_BASE_URL="not a url": expected an http(s) URL');
  });

  test('an OPENAI_BASE_URL with user:password@ is refused, and the password is printed nowhere', async () => {
    const finished = await runScript('src/processes/worker.ts', {
      env: cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        OPENAI_BASE_URL: 'https://proxy-user:s3cret-pass-word@llm.internal/v1',
      }),
    });
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain(
      'OPENAI_BASE_URL="https://***@llm.internal/v1" has credentials in it (user:password@)',
    );
    expect(finished.stdout + finished.stderr).not.toMatch(/s3cret-pass-word|proxy-user/);
  });

  test('AGENT_APPROVAL_REQUIRED_TOOLS naming a tool the workflow answers itself, with why', async () => {
    const finished = await runScript('src/processes/worker.ts', {
      env: cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        OPENAI_API_KEY: 'sk-test',
        AGENT_APPROVAL_REQUIRED_TOOLS: 'write_file,context_release',
      }),
    });
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain(
      'AGENT_APPROVAL_REQUIRED_TOOLS names "context_release": the workflow answers it itself while masking is on',
    );
    expect(finished.stderr).toContain('Remove it from the list.');
  });

  test('a server that is not there', async () => {
    const finished = await runScript('src/processes/worker.ts', {
      env: cleanEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1', OPENAI_API_KEY: 'sk-test' }),
    });
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain('Cannot reach the Temporal server at 127.0.0.1:1');
    expect(finished.stderr).toContain('npm run server');
  });
});

describe('a run started from the official Temporal CLI against `npm run worker`', () => {
  let model: ScriptedModelServer;
  beforeAll(async () => {
    model = await ScriptedModelServer.start();
  });
  afterAll(async () => {
    await model.close();
  });

  test('temporal workflow start, query state while it runs, then the result', async () => {
    const taskQueue = `cli-${randomUUID()}`;
    const modelName = `cli-model-${randomUUID()}`;
    model.script(modelName, [
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2^10' } }], delayMs: 3_000 },
      { content: 'Two to the tenth is 1024.', delayMs: 3_000 },
    ]);
    const address = testServerAddress();
    const worker = await startWorkerProcess({
      taskQueue,
      modelBaseURL: model.baseURL,
      address: address,
      extraEnv: { OPENAI_MODEL: modelName },
    });
    // A failure inside must not be hidden by the worker's exit code: keep it, stop the worker, then report it.
    let failure: unknown;
    try {
      const cli = await temporalCli();
      const workflowId = `cli-run-${randomUUID()}`;
      const input = JSON.stringify({ tools: ['calculator'], message: 'What is 2^10?' });
      const started = await runProcess(cli, [
        'workflow',
        'start',
        '--address',
        address,
        '--type',
        'agentWorkflow',
        '--task-queue',
        taskQueue,
        '--workflow-id',
        workflowId,
        '--input',
        input,
      ]);
      expect(started.stderr).toBe('');
      expect(started.code).toBe(0);

      // Query through the CLI until the run is visibly inside its first model call (delayed 3 s).
      let state: { status: string; iteration: number; activity: string } | undefined;
      for (let attempt = 0; attempt < 40 && (state?.iteration ?? 0) < 1; attempt++) {
        const queried = await runProcess(cli, [
          'workflow',
          'query',
          '--address',
          address,
          '--workflow-id',
          workflowId,
          '--name',
          'state',
          '--output',
          'json',
        ]);
        expect(queried.code).toBe(0);
        state = (JSON.parse(queried.stdout) as { queryResult: [typeof state] }).queryResult[0];
      }
      expect(state?.status).toBe('running');
      expect(state?.iteration).toBeGreaterThanOrEqual(1);
      expect(state?.activity).toMatch(/^iteration \d+: (calling the model|running calculator)$/);

      const result = await runProcess(cli, [
        'workflow',
        'result',
        '--address',
        address,
        '--workflow-id',
        workflowId,
        '--output',
        'json',
      ]);
      expect(result.code).toBe(0);
      const parsed = JSON.parse(result.stdout) as { status: string; result: { response: string; iterations: number } };
      expect(parsed.status).toBe('COMPLETED');
      expect(parsed.result).toMatchObject({ response: 'Two to the tenth is 1024.', iterations: 2 });
    } catch (error) {
      failure = error;
    }
    const code = await stopChild(worker.child);
    if (failure !== undefined) throw failure;
    // Ctrl-C reaches tsx and the worker; the worker drains (asserted here, and its own exit code 0 in the
    // shutdown test below). tsx may then report 130, the shell's usual status for an interrupted command.
    expect([0, 130]).toContain(code);
    expect(worker.output()).toContain('SIGINT: stopping; tasks in progress finish first');
    expect(worker.output()).toMatch(/state: 'STOPPED'/);
  }, 180_000);
});

describe('npm run demo', () => {
  test('runs the offline demo task against the server in TEMPORAL_ADDRESS and prints the result and UI link', async () => {
    const workspace = await mkdtemp(path.join(os.tmpdir(), 'demo-workspace-'));
    const finished = await runScript('src/processes/demo.ts', {
      env: cleanEnv({ TEMPORAL_ADDRESS: testServerAddress(), TEMPORAL_UI_URL: 'http://localhost:8233' }),
      args: ['--workspace', workspace],
      timeoutMs: 120_000,
    });
    expect(finished.stderr).toBe('');
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain('uses the bundled scripted offline model');
    expect(finished.stdout).toContain('→ list_files {}');
    expect(finished.stdout).toContain('Response: Summarised 3 files into summary.md.');
    expect(finished.stdout).toMatch(
      /Web UI: http:\/\/localhost:8233\/namespaces\/default\/workflows\/demo-[^/]+\/[0-9a-f-]+\/history/,
    );
    const summary = await readFile(path.join(workspace, 'summary.md'), 'utf8');
    expect(summary).toContain('3 files');
    expect(summary).toContain('**roadmap.md** — Q1 roadmap');
  }, 150_000);
});

describe('a server without the search attributes', () => {
  test('npm run worker refuses it with the command that fixes it; npm run demo registers them itself and runs', async () => {
    const port = await freePort();
    const server = spawn(
      await temporalCli(),
      ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error'],
      {
        stdio: 'ignore',
      },
    );
    try {
      const address = `127.0.0.1:${port}`;
      await waitForServer(address, 30_000);

      const worker = await runScript('src/processes/worker.ts', {
        env: cleanEnv({ TEMPORAL_ADDRESS: address, OPENAI_API_KEY: 'sk-test' }),
      });
      expect(worker.code).toBe(1);
      expect(worker.stderr).toContain(
        'The Temporal namespace "default" lacks the search attributes AgentStatus, AgentIterations',
      );
      expect(worker.stderr).toContain(
        'temporal operator search-attribute create --namespace default --name AgentStatus --type Keyword',
      );

      const workspace = await mkdtemp(path.join(os.tmpdir(), 'demo-bare-'));
      const demo = await runScript('src/processes/demo.ts', {
        env: cleanEnv({ TEMPORAL_ADDRESS: address }),
        args: ['--workspace', workspace],
        timeoutMs: 120_000,
      });
      expect(demo.code).toBe(0);
      expect(demo.stdout).toContain(
        'Registered the search attributes AgentStatus, AgentIterations, AgentTotalTokens, AgentCostUsd, AgentPendingApprovals, AgentTerminationReason',
      );
      expect(demo.stdout).toContain('Response: Summarised 3 files into summary.md.');
    } finally {
      await stopProcess(server.pid);
    }
  }, 240_000);
});

describe('npm run worker shutdown', () => {
  test("a SIGINT that arrives twice (the terminal's and the one tsx relays) still drains and exits 0", async () => {
    // node itself, no tsx parent: the signals go to the worker process alone.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/processes/worker.ts'], {
      cwd: PROJECT_ROOT,
      env: cleanEnv({
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: `shutdown-${randomUUID()}`,
        OPENAI_API_KEY: 'sk-test',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    // 'close', not 'exit': the output is read to its end before it is checked.
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    );
    const ready = new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Worker polling task queue')) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then(({ code }) => reject(new Error(`the worker exited with ${code} before it polled:\n${output}`)));
    });
    await ready;
    child.kill('SIGINT');
    child.kill('SIGINT');
    const outcome = await exited;
    expect({ ...outcome, output: outcome.code === 0 ? '' : output }).toEqual({ code: 0, signal: null, output: '' });
    expect(output).toContain('SIGINT: stopping; tasks in progress finish first');
  }, 150_000);
});
