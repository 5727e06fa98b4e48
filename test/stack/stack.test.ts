import type { ChildProcess } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { ScriptedModelServer } from '../../src/scripted-model/server';
import type { ChatCompletionRequest } from '../../src/scripted-model/script';
import { readPostmasterPid, stopLeftovers } from '../../dev/stack/leftovers';
import { clusterOwner, postgresBinDirectory } from '../../dev/stack/postgres';
import { isAlive } from '../../src/dev-server/dev-server';
import { startStack, type Stack } from '../../dev/stack/stack';
import type { Json } from '../helpers/api';
import { cleanEnv, runProcess, startScript, stopChild } from '../helpers/processes';
import { buildStackDist } from '../helpers/stack-dist';
import { stackProcesses } from '../helpers/stack-processes';
import { waitFor } from '../helpers/wait';
import { launchChromium } from '../helpers/browser';

/**
 * The production shape (`npm run stack`: Temporal built from source on a PostgreSQL cluster of its own, the web UI,
 * two workers, two API processes) started fresh in a temporary folder, with the scripted model. A run through one
 * API process, its result through the other; a run through the `agent-runner` CLI; both found by their search
 * attributes in the API's listing, Temporal's visibility API, and the web UI (its HTTP API and its page in headless
 * Chromium). Then the stack stops and leaves nothing running; started again on the same folder it finds its runs;
 * SIGKILLed, its parts are stopped by the next start, a second start beside a running one is refused; Ctrl-C stops
 * every part in order.
 */

const MODEL = 'stack-test-agent';
const TOKEN = 'stack-test-token-0123456789abcdef';
const COMPLETED = "AgentStatus = 'completed'";
const log = (line: string) => process.stderr.write(`[stack] ${line}\n`);
/** In the environment the stack is started with: the parts that need no secret must not get them. */
const SECRETS = {
  OPENAI_API_KEY: 'sk-stack-test-model-key-0123456789',
  AGENT_API_TOKEN: 'stack-test-api-token-in-the-environment',
  AGENT_CODEC_KEY: 'stack-test-codec-key-in-the-environment',
};

/** The environment `pid` runs with, from /proc (the stack's parts run as this user, or as root). */
async function environmentOf(pid: number | undefined): Promise<Record<string, string>> {
  expect(pid).toBeDefined();
  const raw = await readFile(`/proc/${pid}/environ`, 'utf8');
  return Object.fromEntries(
    raw
      .split('\0')
      .filter((entry) => entry !== '')
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

/** Expects none of {@link SECRETS}, by name or by value, in `pid`'s environment; returns it. */
async function expectNoSecrets(pid: number | undefined): Promise<Record<string, string>> {
  const environment = await environmentOf(pid);
  const text = Object.entries(environment).map(([name, value]) => `${name}=${value}`);
  for (const [name, value] of Object.entries(SECRETS)) {
    expect(environment[name]).toBeUndefined();
    expect(text.filter((entry) => entry.includes(value))).toEqual([]);
  }
  return environment;
}

/** Connects to the stack's PostgreSQL as `temporal` with `password`, as any local account could. */
async function connectsWith(port: number, password: string): Promise<{ code: number | null; stderr: string }> {
  const psql = path.join(await postgresBinDirectory(), 'psql');
  const { code, stderr } = await runProcess(
    psql,
    ['-h', '127.0.0.1', '-p', String(port), '-U', 'temporal', '-d', 'postgres', '-w', '-Atc', 'SELECT 1'],
    { env: { PATH: process.env.PATH, PGPASSWORD: password }, timeoutMs: 10_000 },
  );
  return { code, stderr };
}

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

/** Lists the workspace, then finishes: two iterations, two model calls. */
function listThenFinish(request: ChatCompletionRequest) {
  return request.messages.some((message) => message.role === 'tool')
    ? { toolCalls: [{ name: 'finish', arguments: { note: 'Listed the workspace.' } }] }
    : { content: 'Looking at the workspace.', toolCalls: [{ name: 'list_files', arguments: {} }] };
}

let model: ScriptedModelServer;
let directory: string;
let dist: string;
let stack: Stack | undefined;
let child: ChildProcess | undefined;
const runIds: string[] = [];

beforeAll(async () => {
  dist = await buildStackDist(log);
  model = (await ScriptedModelServer.start()).respond(MODEL, listThenFinish);
  directory = await mkdtemp(path.join(os.tmpdir(), 'agent-runner-stack-'));
  const started = Date.now();
  // Set for the start alone, as a shell that exported them would: the stack's process has them.
  Object.assign(process.env, SECRETS);
  stack = await startStack({
    directory,
    fresh: true,
    dist,
    model: { baseURL: model.baseURL, model: MODEL },
    apiToken: TOKEN,
    log,
  }).finally(() => {
    for (const name of Object.keys(SECRETS)) delete process.env[name];
  });
  log(`fresh stack up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 300_000);

afterAll(async () => {
  if (child?.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
  await stack?.stop();
  // Whatever a failed test left, as the next `npm run stack` would.
  if (directory !== undefined) {
    await stopLeftovers(directory);
    await rm(directory, { recursive: true, force: true });
  }
  await model?.close();
}, 60_000);

const bearer = { authorization: `Bearer ${TOKEN}` };

async function api(url: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { ...init, headers: { ...bearer, 'content-type': 'application/json' } });
  return { status: response.status, body: response.status === 204 ? undefined : await response.json() };
}

/** The runs the API process lists for `query` (ANDed with the test's own run ids). */
async function listed(apiUrl: string, query: string): Promise<Array<{ run_id: string; status: string }>> {
  const ids = runIds.map((id) => `'${id}'`).join(', ');
  const { status, body } = await api(
    `${apiUrl}/runs?query=${encodeURIComponent(`${query} AND WorkflowId IN (${ids})`)}`,
  );
  expect(status).toBe(200);
  return body.runs;
}

describe('the production shape on this machine', () => {
  test("PostgreSQL refuses temporal/temporal; the stack's folder, token, logs and configuration are private", async () => {
    const running = stack!;
    const refused = await connectsWith(running.postgres.port, 'temporal');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/password authentication failed for user "temporal"/);
    expect((await connectsWith(running.postgres.port, running.postgres.password)).code).toBe(0);

    // As root, PostgreSQL's own user passes through the folder (0710, the postgres group); no one else gets in.
    const folder = await stat(directory);
    const owner = await clusterOwner();
    expect(folder.mode & 0o777).toBe(owner === undefined ? 0o700 : 0o710);
    if (owner !== undefined) expect(folder.gid).toBe(owner.gid);
    const files = (await readdir(directory, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)));
    const expected = [
      'api-token',
      'postgres/password',
      'postgres/postgres.log',
      'temporal/config/stack.yaml',
      'temporal/temporal.log',
      'ui/config/stack.yaml',
      'temporal-ui.log',
      'worker-1.log',
      'api-1.log',
    ];
    expect(files).toEqual(expect.arrayContaining(expected));
    for (const file of [...expected, ...files.filter((name) => name.endsWith('.log'))]) {
      expect({ file, mode: (await modeOf(path.join(directory, file))).toString(8) }).toEqual({ file, mode: '600' });
    }
    expect(await readFile(path.join(directory, 'temporal/config/stack.yaml'), 'utf8')).toContain(
      running.postgres.password,
    );
  });

  test('the Temporal server, its web UI and PostgreSQL run without the secrets of the environment they were started from', async () => {
    const running = stack!;
    const temporal = await expectNoSecrets(running.temporal.pid());
    // What they do get: the allow-list, and the stack's marker.
    expect(temporal.PATH).toBe(process.env.PATH);
    expect(temporal.AGENT_RUNNER_STACK).toBe(directory);
    await expectNoSecrets(running.ui?.pid());
    await expectNoSecrets(await readPostmasterPid(path.join(directory, 'postgres', 'data')));
  });

  test('a run started through one API process ends, and the other API process serves its result', async () => {
    const [first, second] = stack!.apis;
    const started = await api(`${first!.url}/runs`, {
      method: 'POST',
      body: JSON.stringify({
        input: {
          message: 'What is in the workspace?',
          tools: ['list_files', 'finish'],
          terminating: { toolIds: ['finish'] },
        },
      }),
    });
    expect(started.status).toBe(202);
    const runId: string = started.body.run_id;
    runIds.push(runId);
    const result = await waitFor(
      () => api(`${second!.url}/runs/${encodeURIComponent(runId)}/result`),
      (answer) => answer.status === 200,
      30_000,
    );
    expect(result.body).toMatchObject({ run_id: runId, outcome: 'completed' });
  }, 40_000);

  test('a run through the agent-runner CLI, pointed at the stack by TEMPORAL_ADDRESS, ends with exit code 0', async () => {
    const runId = `stack-cli-${Date.now()}`;
    runIds.push(runId);
    const cli = await runProcess(
      process.execPath,
      ['bin/agent-runner.js', 'run', '--tools', 'list_files', '--terminate-on', 'finish', '--id', runId, 'List it'],
      {
        env: cleanEnv({
          TEMPORAL_ADDRESS: stack!.address,
          TEMPORAL_NAMESPACE: stack!.namespace,
          AGENT_TASK_QUEUE: stack!.taskQueue,
        }),
        timeoutMs: 40_000,
      },
    );
    expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: '' });
    expect(cli.stdout).toMatch(/Completed: terminating_tool \(finish was called\) · 2 iterations/);
  }, 45_000);

  test('both runs are listed by their search attributes: by the API, by Temporal visibility, by the web UI', async () => {
    expect(runIds).toHaveLength(2);
    // Through either API process: they read the same visibility store.
    for (const apiProcess of stack!.apis) {
      const runs = await waitFor(
        () => listed(apiProcess.url, COMPLETED),
        (found) => found.length === 2,
      );
      expect(runs.map((run) => run.run_id).sort()).toEqual([...runIds].sort());
      expect(runs.every((run) => run.status === 'completed')).toBe(true);
    }

    const ids = runIds.map((id) => `'${id}'`).join(', ');
    const query = `${COMPLETED} AND AgentIterations = 2 AND WorkflowId IN (${ids})`;
    const connection = await Connection.connect({ address: stack!.address });
    try {
      const { executions } = await connection.workflowService.listWorkflowExecutions({
        namespace: stack!.namespace,
        query,
      });
      expect(executions.map((execution) => execution.execution?.workflowId).sort()).toEqual([...runIds].sort());
    } finally {
      await connection.close();
    }

    // The web UI's own HTTP API (ui-server 2.42.1 proxies Temporal's HTTP API under /api/v1), as its page reads it.
    const ui = stack!.ui!;
    const answer = await fetch(`${ui.url}/api/v1/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
    expect(answer.status).toBe(200);
    const { executions } = (await answer.json()) as {
      executions: Array<{
        execution: { workflowId: string };
        searchAttributes: { indexedFields: Record<string, { data: string }> };
      }>;
    };
    expect(executions.map((execution) => execution.execution.workflowId).sort()).toEqual([...runIds].sort());
    for (const execution of executions) {
      const status = execution.searchAttributes.indexedFields.AgentStatus?.data ?? '';
      expect(JSON.parse(Buffer.from(status, 'base64').toString())).toBe('completed');
    }

    // The page a person opens: the workflow list filtered by the same query.
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${ui.url}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
      for (const runId of runIds) await page.getByText(runId).first().waitFor({ timeout: 20_000 });
    } finally {
      await browser.close();
    }
  }, 60_000);

  test('stopped, the stack leaves no process running and PostgreSQL shut down cleanly', async () => {
    const running = stack!;
    stack = undefined;
    expect(await stackProcesses(directory)).not.toHaveLength(0);
    await running.stop();
    expect(await stackProcesses(directory)).toEqual([]);
    // A clean shutdown removes postmaster.pid: the next start needs no recovery and finds nothing to stop.
    await expect(access(path.join(directory, 'postgres', 'data', 'postmaster.pid'))).rejects.toThrow();
  }, 60_000);

  const foregroundEnv = () =>
    cleanEnv({
      STACK_DIRECTORY: directory,
      STACK_DIST: dist,
      STACK_MODEL_URL: model.baseURL,
      STACK_MODEL: MODEL,
      STACK_API_TOKEN: TOKEN,
      ...SECRETS,
    });
  const apiUrlOf = (output: string) => /^ {2}api-1 +(http:\S+)$/m.exec(output)?.[1] ?? '';

  test('started again on the same folder, it reuses the database: the runs from before are listed', async () => {
    const started = await startScript('test/fixtures/stack-foreground.ts', foregroundEnv(), /Ctrl-C stops/, 180_000);
    child = started.child;
    const output = started.output();
    log(/The stack is up \([^)]*\)/.exec(output)?.[0] ?? output);
    expect(output).not.toMatch(/Creating a PostgreSQL cluster|Creating the temporal database/);
    // A process of its own, started with the secrets: PostgreSQL and Temporal get none of them.
    const pids = JSON.parse(await readFile(path.join(directory, 'pids.json'), 'utf8')) as Record<string, number>;
    await expectNoSecrets(pids.temporal);
    await expectNoSecrets(await readPostmasterPid(path.join(directory, 'postgres', 'data')));
    const runs = await waitFor(
      () => listed(apiUrlOf(output), COMPLETED),
      (found) => found.length === 2,
    );
    expect(runs.map((run) => run.run_id).sort()).toEqual([...runIds].sort());
  }, 200_000);

  test('SIGKILLed, the stack leaves its parts running; the next start stops them, refuses a second start, and Ctrl-C stops it in order', async () => {
    const crashed = child!;
    const before = await stackProcesses(directory);
    process.kill(-(crashed.pid as number), 'SIGKILL');
    await new Promise((resolve) => crashed.once('exit', resolve));
    const left = await stackProcesses(directory);
    // PostgreSQL, Temporal, the worker and the API run in process groups of their own, as with a real crash.
    expect(left.join('\n')).toMatch(/temporal-server/);
    expect(left.join('\n')).toMatch(/dist\/processes\/worker\.js/);
    expect(left.length).toBeLessThan(before.length);

    const started = await startScript('test/fixtures/stack-foreground.ts', foregroundEnv(), /Ctrl-C stops/, 180_000);
    child = started.child;
    const stoppedNames = /Stopped what an earlier stack in .* left running: ([^\n]*)\./.exec(started.output())?.[1];
    expect(stoppedNames?.split(', ')).toEqual(expect.arrayContaining(['postgres', 'temporal', 'worker-1', 'api-1']));
    const leftPids = left.map((line) => Number(line.split(' ')[0]));
    expect(leftPids.filter((pid) => isAlive(pid))).toEqual([]);
    // PostgreSQL recovered from its WAL: the runs are still there.
    const runs = await waitFor(
      () => listed(apiUrlOf(started.output()), COMPLETED),
      (found) => found.length === 2,
    );
    expect(runs).toHaveLength(2);

    // A second start on the folder while this one runs is refused, and leaves this one running.
    const second = startStack({ directory, dist, model: { baseURL: model.baseURL, model: MODEL }, log, ui: false });
    await expect(
      second.then((started) => {
        stack = started;
      }),
    ).rejects.toThrow(/A stack is running in .*: its \S+ \(pid \d+\) belongs to process \d+/);
    expect((await api(`${apiUrlOf(started.output())}/runs?limit=1`)).status).toBe(200);

    // Ctrl-C, as in the terminal: every part stops, the APIs first and PostgreSQL last.
    const code = await stopChild(started.child, 'SIGINT');
    const output = started.output();
    expect(code).toBe(0);
    const order = ['api-1', 'worker-1', 'temporal', 'postgres'].map((name) => output.indexOf(`Stopped ${name} (`));
    expect(order.every((index) => index > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(output).toMatch(/\nStopped\.\n/);
    expect(await stackProcesses(directory)).toEqual([]);
    await expect(access(path.join(directory, 'postgres', 'data', 'postmaster.pid'))).rejects.toThrow();
  }, 240_000);
});
